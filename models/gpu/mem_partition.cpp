#include "models/gpu/mem_partition.h"

#include <algorithm>
#include <utility>

#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::gpu {

// One L2 slice: data port, miss queue (two class FIFOs), MSHR bytes, hit completions, waiters, and
// the write-back buffer (dirty bytes and their FIFO, forwarded to DRAM by their own client so a
// write-back the DRAM refuses never holds up the slice's demand misses, nor they it).
class MemPartition::Slice final : public common::MemClient {
 public:
  // The rings grow on first use (a class or a path a run never uses allocates nothing).
  explicit Slice(MemPartition& p)
      : p_(p),
        missq_max_(p.spec_.miss_queue.count()),
        mshr_max_(p.spec_.mshr.count()),
        dirty_max_(p.spec_.dirty.count()) {}
  bool full() const { return missq_bytes_ >= missq_max_ || mshr_bytes_ >= mshr_max_; }
  // Room in the write-back buffer for `bytes` more (an empty buffer takes any store).
  bool dirty_room(uint64_t bytes) const {
    return dirty_bytes_ == 0 || dirty_bytes_ + bytes <= dirty_max_;
  }
  void hit(const common::MemRequest& req, Tick done) {
    hits_.push({done + p_.spec_.hit_latency, req});
    if (!hit_event_.scheduled()) p_.sim().schedule(hit_event_, hits_.front().done);
  }
  void miss(uint32_t slot) {
    const common::MemRequest& r = p_.slots_[slot];
    const bool was = full();
    missq_bytes_ += r.bytes;
    if (r.cmd == common::MemCmd::kRead) mshr_bytes_ += r.bytes;
    p_.full_changed(was, full());
    fifo_[common::is_compute(r.cls) ? 0 : 1].push({seq_++, slot});
    pump();
  }
  // A buffered store's data, now dirty in this slice (slot: its write-back request).
  void dirty(uint32_t slot) {
    dirty_bytes_ += p_.slots_[slot].bytes;
    wb_.push(slot);
    pump();
  }
  void add_waiter(common::MemClient* c) { add_once(waiters_, c); }
  void add_dirty_waiter(common::MemClient* c) { add_once(dirty_waiters_, c); }
  void mem_done(const common::MemRequest& fwd) override {
    const auto slot = static_cast<uint32_t>(fwd.tag);
    const common::MemRequest orig = p_.slots_[slot];
    p_.slots_.release(slot);
    const bool was = full();
    if (orig.cmd == common::MemCmd::kRead) mshr_bytes_ -= orig.bytes;
    p_.full_changed(was, full());
    p_.completed(orig);
    wake();
  }
  void mem_retry() override {
    waiting_dram_ = false;
    pump();
  }
  bool idle() const { return hits_.empty() && fifo_[0].empty() && fifo_[1].empty() && wb_.empty(); }

 private:
  struct Pending {
    Tick done;
    common::MemRequest req;
  };
  struct Queued {
    uint64_t seq;
    uint32_t slot;
  };
  // The write-back port: DRAM completions and retries of write-backs.
  class WriteBack final : public common::MemClient {
   public:
    explicit WriteBack(Slice& s) : s_(s) {}
    void mem_done(const common::MemRequest& fwd) override {
      const auto slot = static_cast<uint32_t>(fwd.tag);
      s_.p_.slots_.release(slot);
      s_.p_.written_back();
    }
    void mem_retry() override {
      s_.wb_waiting_ = false;
      s_.pump();
    }

   private:
    Slice& s_;
  };
  static void add_once(RingBuffer<common::MemClient*>& q, common::MemClient* c) {
    if (!q.contains(c)) q.push(c);  // MemTarget::wait_for_space
  }
  // Forwards queued misses to DRAM, older head first; a refused head lets the other class try.
  // Then write-backs, into whatever room the demand misses left (they wait for DRAM on their own
  // client), or before the misses once the dirty bytes pass half the buffer (a write drain, so
  // stores do not wait on a full buffer while reads keep DRAM busy).
  void pump() {
    if (draining()) pump_write_backs();
    while (!waiting_dram_ && (!fifo_[0].empty() || !fifo_[1].empty())) {
      int first = fifo_[1].empty() ? 0 : (fifo_[0].empty() ? 1 : -1);
      if (first < 0) first = fifo_[0].front().seq < fifo_[1].front().seq ? 0 : 1;
      if (forward(first)) continue;
      const int other = 1 - first;
      if (!fifo_[other].empty() && forward(other)) continue;
      waiting_dram_ = true;
      p_.dram_.wait_for_space(this);
    }
    pump_write_backs();
    wake();
  }
  bool draining() const { return 2 * dirty_bytes_ >= dirty_max_; }
  void pump_write_backs() {
    while (!wb_waiting_ && !wb_.empty()) {
      const uint32_t slot = wb_.front();
      common::MemRequest fwd = p_.slots_[slot];
      fwd.client = &wb_client_;
      fwd.tag = slot;
      if (!p_.dram_.try_issue(fwd)) {
        wb_waiting_ = true;
        p_.dram_.wait_for_space(&wb_client_);
        return;
      }
      wb_.pop();
      dirty_bytes_ -= fwd.bytes;  // the data left the slice for the DRAM controller's queue
      p_.miss_bytes_.inc(fwd.bytes);
      wake_dirty();
    }
  }
  bool forward(int q) {
    const uint32_t slot = fifo_[static_cast<size_t>(q)].front().slot;
    common::MemRequest fwd = p_.slots_[slot];
    fwd.client = this;
    fwd.tag = slot;
    if (!p_.dram_.try_issue(fwd)) return false;
    fifo_[static_cast<size_t>(q)].pop();
    const bool was = full();
    missq_bytes_ -= fwd.bytes;
    p_.full_changed(was, full());
    return true;
  }
  void wake() {
    if (full() || waking_) return;
    waking_ = true;  // a retry may refill the slice; later waiters stay queued
    while (!waiters_.empty() && !full()) {
      common::MemClient* c = waiters_.pop();
      c->mem_retry();
    }
    waking_ = false;
    wake_dirty();
  }
  // Stores refused for a full write-back buffer retry once it has room (and the slice is open).
  void wake_dirty() {
    if (full() || dirty_waiters_.empty() || waking_dirty_ || dirty_bytes_ >= dirty_max_) {
      return;
    }
    waking_dirty_ = true;  // only the waiters present now: one refused again waits for more room
    for (size_t n = dirty_waiters_.size();
         n > 0 && !dirty_waiters_.empty() && !full() && dirty_bytes_ < dirty_max_; --n) {
      common::MemClient* c = dirty_waiters_.pop();
      c->mem_retry();
    }
    waking_dirty_ = false;
  }
  void on_hit() {
    const Tick now = p_.sim().now();
    while (!hits_.empty() && hits_.front().done <= now) {
      const common::MemRequest req = hits_.pop().req;
      p_.completed(req);
    }
    if (!hits_.empty() && !hit_event_.scheduled())
      p_.sim().schedule(hit_event_, hits_.front().done);
  }

  MemPartition& p_;
  // The spec's miss queue, MSHR and write-back buffer bytes, read on every request.
  const uint64_t missq_max_;
  const uint64_t mshr_max_;
  const uint64_t dirty_max_;
  uint64_t missq_bytes_ = 0;
  uint64_t mshr_bytes_ = 0;
  uint64_t dirty_bytes_ = 0;
  uint64_t seq_ = 0;
  bool waiting_dram_ = false;
  bool wb_waiting_ = false;
  bool waking_ = false;
  bool waking_dirty_ = false;
  std::array<RingBuffer<Queued>, 2> fifo_;  // [0] compute, [1] communication
  RingBuffer<uint32_t> wb_;                 // write-backs in the order their stores arrived
  RingBuffer<Pending> hits_;
  RingBuffer<common::MemClient*> waiters_;
  RingBuffer<common::MemClient*> dirty_waiters_;
  WriteBack wb_client_{*this};
  MemberEvent<Slice, &Slice::on_hit> hit_event_{this};
};

MemPartition::MemPartition(Simulator& sim, Component* parent, std::string name,
                           const PartitionSpec& spec, Bandwidth fallback_hit_bandwidth,
                           common::MemTarget& dram, const common::ChannelMap& map)
    : Component(sim, parent, std::move(name)),
      spec_(spec),
      residency_(spec.comm_policy),
      dram_(dram),
      map_(map) {
  const Bandwidth total =
      spec.hit_bandwidth.bytes_per_second() != 0 ? spec.hit_bandwidth : fallback_hit_bandwidth;
  if (total.bytes_per_second() == 0) {
    throw ModelError(path(), "the L2 partition needs gpu.l2_hit_bandwidth or gpu.l2_bandwidth");
  }
  port_ = total;
  for (uint32_t s = 0; s < map.channels(); ++s) slices_.push_back(std::make_unique<Slice>(*this));
  stats().add("hit_bytes", hit_bytes_, "B", "bytes served by L2 slices (hits)");
  stats().add("miss_bytes", miss_bytes_, "B", "bytes sent to DRAM through the miss queues");
  stats().add("refusals", refusals_, "count", "requests refused by a full slice");
  stats().add("blocked_hits", blocked_hits_, "count", "hits refused by a full slice");
  stats().add("buffered_store_bytes", buffered_bytes_, "B",
              "store bytes the slices took into their write-back buffers");
}

MemPartition::~MemPartition() = default;

bool MemPartition::try_issue(const common::MemRequest& req) {
  const uint32_t s = map_.channel(req.addr);
  Slice& slice = *slices_[s];
  const bool buffered = req.write_back && spec_.dirty.count() != 0;
  if (slice.full() || (buffered && !slice.dirty_room(req.bytes))) {
    refused_ = s;
    refused_dirty_ = !slice.full();
    refusals_.inc();
    if (req.l2_hit) blocked_hits_.inc();
    return false;
  }
  in_[static_cast<size_t>(req.cls)] += req.bytes;
  residency_.passed(req);
  ++outstanding_;
  common::MemRequest r = req;
  r.enqueued = sim().now();
  const Tick port_done = use_port(req.bytes);
  if (req.l2_hit) {
    hit_bytes_.inc(req.bytes);
    slice.hit(r, port_done);
    return true;
  }
  if (buffered) {  // the slice takes the data now; its write-back reaches DRAM later
    buffered_bytes_.inc(req.bytes);
    slice.hit(r, port_done);
    common::MemRequest wb = r;
    wb.client = nullptr;
    wb.write_back = false;
    ++outstanding_;
    slice.dirty(slots_.acquire(wb));
    return true;
  }
  miss_bytes_.inc(req.bytes);
  slice.miss(slots_.acquire(r));
  return true;
}

Tick MemPartition::reserve_hit(uint64_t addr, uint64_t bytes, common::TrafficClass cls) {
  const uint64_t block = map_.interleave();
  for (uint64_t a = addr; full_slices_ != 0 && a < addr + bytes; a = (a / block + 1) * block) {
    if (slices_[map_.channel(a)]->full()) {
      refusals_.inc();
      blocked_hits_.inc();
      return Tick::max();
    }
  }
  const Tick done = use_port(bytes) + spec_.hit_latency;
  hit_bytes_.inc(bytes);
  in_[static_cast<size_t>(cls)] += bytes;
  out_[static_cast<size_t>(cls)] += bytes;
  return done;
}

Tick MemPartition::use_port(uint64_t bytes) {
  const Tick start = max(sim().now(), port_free_);
  if (bytes != port_memo_bytes_) {  // requests repeat their sizes: keep the last division
    port_memo_bytes_ = bytes;
    port_memo_time_ = transfer_time(Bytes(bytes), port_);
  }
  port_free_ = start + port_memo_time_;
  return port_free_;
}

void MemPartition::wait_for_space(common::MemClient* c) {
  if (refused_dirty_) {
    slices_[refused_]->add_dirty_waiter(c);
  } else {
    slices_[refused_]->add_waiter(c);
  }
}

void MemPartition::completed(const common::MemRequest& req) {
  out_[static_cast<size_t>(req.cls)] += req.bytes;
  --outstanding_;
  if (req.client != nullptr) req.client->mem_done(req);
}

void MemPartition::written_back() { --outstanding_; }

void MemPartition::finish() {
  if (outstanding_ != 0) {
    throw ModelError(path(), std::to_string(outstanding_) + " requests never completed");
  }
}

}  // namespace t3sim::gpu
