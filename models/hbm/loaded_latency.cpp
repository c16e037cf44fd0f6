#include "models/hbm/loaded_latency.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "models/hbm/hbm.h"
#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::hbm {
namespace {

// One channel's FIFO at the source: offers its requests in order, waits when refused.
class Feeder final : public common::MemClient {
 public:
  Feeder(Simulator& sim, Hbm& hbm, std::vector<double>& latency_ns)
      : sim_(sim), hbm_(hbm), latency_ns_(latency_ns) {}
  void offer(const common::MemRequest& r) {
    backlog_.push_back(r);
    drain();
  }
  void mem_done(const common::MemRequest& r) override {
    latency_ns_.push_back((sim_.now() - Tick::from_ps(r.tag)).to_ns());
    done_at_.push_back(sim_.now());
  }
  void mem_retry() override {
    waiting_ = false;
    drain();
  }
  // Requests of this channel completed at or before `t`.
  uint64_t completed_by(Tick t) const {
    return static_cast<uint64_t>(std::upper_bound(done_at_.begin(), done_at_.end(), t) -
                                 done_at_.begin());
  }

 private:
  void drain() {
    while (!waiting_ && next_ < backlog_.size()) {
      if (!hbm_.try_issue(backlog_[next_])) {
        waiting_ = true;
        hbm_.wait_for_space(this);
        return;
      }
      ++next_;
    }
  }
  Simulator& sim_;
  Hbm& hbm_;
  std::vector<double>& latency_ns_;
  std::vector<common::MemRequest> backlog_;
  size_t next_ = 0;
  bool waiting_ = false;
  std::vector<Tick> done_at_;  // completion times, in order
};

// The open-loop stream: request i is offered at i x gap, to block(i), a WRITE when the running
// write share crosses an integer (Bresenham), its offer time in the tag.
class Stream {
 public:
  Stream(Simulator& sim, Hbm& hbm, const LoadedLatencySpec& spec, Duration gap, uint64_t n)
      : sim_(sim), hbm_(hbm), spec_(spec), gap_(gap), n_(n) {
    for (uint32_t c = 0; c < hbm.channels(); ++c) {
      feeders_.push_back(std::make_unique<Feeder>(sim, hbm, latency_ns_));
    }
    sim_.call_at<Stream, &Stream::emit>(Tick{}, this, 0);
  }
  std::vector<double>& latency_ns() { return latency_ns_; }
  uint64_t completed_by(Tick t) const {
    uint64_t n = 0;
    for (const auto& f : feeders_) n += f->completed_by(t);
    return n;
  }

 private:
  void emit(uint64_t i) {
    common::MemRequest r;
    r.addr = block(i) * hbm_.config().interleave_bytes;
    r.bytes = static_cast<uint32_t>(spec_.request.count());
    const double w = 1.0 - spec_.read_share;
    const bool write =
        std::floor(static_cast<double>(i + 1) * w) > std::floor(static_cast<double>(i) * w);
    r.cmd = write ? common::MemCmd::kWrite : common::MemCmd::kRead;
    r.cls = write ? common::TrafficClass::kGemmWrite : common::TrafficClass::kGemmRead;
    r.tag = sim_.now().ps();
    r.client = feeders_[hbm_.channel_of(r.addr)].get();
    feeders_[hbm_.channel_of(r.addr)]->offer(r);
    if (i + 1 < n_) sim_.call_at<Stream, &Stream::emit>(sim_.now() + gap_, this, i + 1);
  }
  uint64_t block(uint64_t i) const {
    if (!spec_.random_blocks) return i;
    uint64_t z = i + 0x9e3779b97f4a7c15ull;  // splitmix64 finaliser: a fixed pseudo-random map
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (z ^ (z >> 31)) % (uint64_t{1} << 24);
  }

  Simulator& sim_;
  Hbm& hbm_;
  const LoadedLatencySpec& spec_;
  Duration gap_;
  uint64_t n_;
  std::vector<double> latency_ns_;
  std::vector<std::unique_ptr<Feeder>> feeders_;
};

LoadedLatencyPoint run_point(const HbmConfig& cfg, const LoadedLatencySpec& spec, double load,
                             uint64_t n) {
  Simulator sim;
  Hbm hbm(sim, &sim.root(), "hbm", cfg);
  const double rate = load * static_cast<double>(cfg.bandwidth.bytes_per_second());  // B/s
  const auto gap = Duration::ps(
      static_cast<uint64_t>(std::llround(static_cast<double>(spec.request.count()) / rate * 1e12)));
  Stream s(sim, hbm, spec, gap, n);
  sim.run();
  sim.finish();
  std::vector<double>& lat = s.latency_ns();
  LoadedLatencyPoint p;
  p.load = load;
  p.offered_gbps = rate / 1e9;
  // Achieved: bytes completed while the stream was offered (n x gap), so the drain of the last
  // backlog after the offer ends does not dilute saturation.
  const Tick window = Tick{} + gap * n;
  const uint64_t done = s.completed_by(window);
  p.achieved_gbps = static_cast<double>(done * spec.request.count()) / window.to_us() / 1e3;
  double sum = 0;
  for (double x : lat) sum += x;
  p.mean_ns = sum / static_cast<double>(lat.size());
  const size_t k = std::min(lat.size() - 1, (lat.size() * 99) / 100);
  std::nth_element(lat.begin(), lat.begin() + static_cast<std::ptrdiff_t>(k), lat.end());
  p.p99_ns = lat[k];
  return p;
}

}  // namespace

LoadedLatencyCurve loaded_latency(const HbmConfig& cfg, const LoadedLatencySpec& spec) {
  if (spec.request.count() == 0 || spec.request.count() > cfg.interleave_bytes) {
    throw ModelError("loaded_latency", "request of " + std::to_string(spec.request.count()) +
                                           " B must be 1 B .. the interleave (" +
                                           std::to_string(cfg.interleave_bytes) + " B)");
  }
  if (spec.read_share < 0 || spec.read_share > 1) {
    throw ModelError("loaded_latency", "read share must be in [0, 1]");
  }
  std::vector<double> loads = spec.loads;
  if (loads.empty()) {
    for (int i = 1; i <= 20; ++i) loads.push_back(0.05 * i);
  }
  LoadedLatencyCurve c;
  c.peak_gbps = static_cast<double>(cfg.bandwidth.bytes_per_second()) / 1e9;
  c.unloaded_ns = (transfer_time(spec.request, cfg.channel_bandwidth()) + cfg.latency).to_ns();
  const uint64_t n = uint64_t{spec.requests_per_channel} * cfg.channels();
  for (double load : loads) {
    if (!(load > 0 && load <= 2)) throw ModelError("loaded_latency", "loads must be in (0, 2]");
    c.points.push_back(run_point(cfg, spec, load, n));
    if (!c.knee && c.points.back().mean_ns > 2 * c.unloaded_ns) c.knee = c.points.size() - 1;
  }
  return c;
}

}  // namespace t3sim::hbm
