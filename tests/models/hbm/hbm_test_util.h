// Test helpers for the HBM model: an Hbm built from a JSON object (with the T3 1 TB/s machine as
// the base), and fake requesters that drive it through common::MemClient with back-pressure.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/common/memory.h"
#include "models/hbm/hbm.h"
#include "sim/config.h"
#include "sim/simulator.h"

namespace t3sim::hbm::testing {

// 4 stacks x 8 channels, 1 TB/s, efficiency 0.9, 100 ns, 10 ns turnaround, NMC 4 TB/s; `over`
// overrides any key.
inline std::unique_ptr<Hbm> make_hbm(Simulator& sim, const nlohmann::json& over = {},
                                     const std::string& name = "hbm") {
  nlohmann::json j = {{"stacks", 4},
                      {"channels_per_stack", 8},
                      {"bandwidth", "1 TB/s"},
                      {"efficiency", 0.9},
                      {"latency", "100 ns"},
                      {"turnaround", "10 ns"},
                      {"nmc_bandwidth", "4 TB/s"},
                      {"interleave", "4 KiB"}};
  for (auto it = over.begin(); it != over.end(); ++it) j[it.key()] = it.value();
  const ConfigDoc doc = config_from_json(j, "<test>");
  return std::make_unique<Hbm>(sim, &sim.root(), name, ConfigNode::root(doc));
}

struct Done {
  uint64_t tag;
  Tick at;
  common::MemCmd cmd;
  common::TrafficClass cls;
  Tick accepted{};  // when the Hbm accepted the request
};

// Issues a list of requests in order, keeping at most `window` outstanding; waits on refusal.
class Requester : public common::MemClient {
 public:
  Requester(Simulator& sim, Hbm& hbm, uint32_t window = 1u << 30)
      : sim_(sim), hbm_(hbm), window_(window) {}
  void add(uint64_t addr, uint32_t bytes, common::MemCmd cmd, common::TrafficClass cls,
           uint32_t tile = common::kNoTile) {
    common::MemRequest r;
    r.addr = addr;
    r.bytes = bytes;
    r.cmd = cmd;
    r.cls = cls;
    r.tile = tile;
    r.client = this;
    r.tag = todo_.size();
    todo_.push_back(r);
  }
  // Sequential stream of `total` bytes from `base` in `size`-byte requests.
  void stream(uint64_t base, uint64_t total, uint32_t size, common::MemCmd cmd,
              common::TrafficClass cls) {
    for (uint64_t off = 0; off < total; off += size) add(base + off, size, cmd, cls);
  }
  void pump() {
    while (!waiting_ && inflight_ < window_ && next_ < todo_.size()) {
      if (!hbm_.try_issue(todo_[next_])) {
        waiting_ = true;
        hbm_.wait_for_space(this);
        return;
      }
      ++next_;
      ++inflight_;
    }
  }
  void mem_done(const common::MemRequest& r) override {
    done_.push_back(Done{r.tag, sim_.now(), r.cmd, r.cls});
    --inflight_;
    pump();
  }
  void mem_retry() override {
    ++retries_;
    waiting_ = false;
    pump();
  }
  const std::vector<Done>& done() const { return done_; }
  uint64_t retries() const { return retries_; }
  Tick last_done() const { return done_.empty() ? Tick{} : done_.back().at; }

 private:
  Simulator& sim_;
  Hbm& hbm_;
  uint32_t window_;
  std::vector<common::MemRequest> todo_;
  size_t next_ = 0;
  uint32_t inflight_ = 0;
  bool waiting_ = false;
  uint64_t retries_ = 0;
  std::vector<Done> done_;
};

}  // namespace t3sim::hbm::testing

namespace t3sim::hbm::testing {

// Open-loop source: offers each request at its own time; refused ones wait (FIFO) at the source.
class TimedSource : public common::MemClient {
 public:
  TimedSource(Simulator& sim, Hbm& hbm) : sim_(sim), hbm_(hbm) {}
  void at(Tick when, uint64_t addr, uint32_t bytes, common::MemCmd cmd, common::TrafficClass cls) {
    common::MemRequest r;
    r.addr = addr;
    r.bytes = bytes;
    r.cmd = cmd;
    r.cls = cls;
    r.client = this;
    r.tag = reqs_.size();
    reqs_.push_back(r);
    offered_.push_back(when);
    sim_.call_at<TimedSource, &TimedSource::arrive>(when, this, r.tag);
  }
  void mem_done(const common::MemRequest& r) override {
    done_.push_back(Done{r.tag, sim_.now(), r.cmd, r.cls, r.enqueued});
  }
  void mem_retry() override {
    waiting_ = false;
    drain();
  }
  const std::vector<Done>& done() const { return done_; }
  Tick offered(uint64_t tag) const { return offered_[tag]; }
  const common::MemRequest& request(uint64_t tag) const { return reqs_[tag]; }

 private:
  void arrive(uint64_t tag) {
    backlog_.push_back(tag);
    drain();
  }
  void drain() {
    while (!waiting_ && next_ < backlog_.size()) {
      if (!hbm_.try_issue(reqs_[backlog_[next_]])) {
        waiting_ = true;
        hbm_.wait_for_space(this);
        return;
      }
      ++next_;
    }
  }
  Simulator& sim_;
  Hbm& hbm_;
  std::vector<common::MemRequest> reqs_;
  std::vector<Tick> offered_;
  std::vector<uint64_t> backlog_;
  size_t next_ = 0;
  bool waiting_ = false;
  std::vector<Done> done_;
};

}  // namespace t3sim::hbm::testing
