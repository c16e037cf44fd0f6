#include "models/gpu/mem_stream.h"

#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "sim/simulator.h"

namespace t3sim::gpu {
namespace {

using namespace t3sim::literals;  // NOLINT(google-build-using-namespace): test literals

// Two queues by address (4 KiB blocks alternate); queue 0 refuses everything before `open_at`,
// then both accept at most `capacity` requests each, completing after 10 ns in order.
class TwoQueueTarget final : public common::MemTarget {
 public:
  TwoQueueTarget(Simulator& sim, Tick open_at, size_t capacity)
      : sim_(sim), open_at_(open_at), capacity_(capacity) {
    sim_.call_at<TwoQueueTarget, &TwoQueueTarget::open>(open_at, this, 0);
  }
  bool try_issue(const common::MemRequest& req) override {
    const size_t q = req.addr / 4096 % 2;
    refused_ = q;
    if ((q == 0 && sim_.now() < open_at_) || busy_[q].size() >= capacity_) return false;
    busy_[q].push_back(req);
    sim_.call_at<TwoQueueTarget, &TwoQueueTarget::complete>(sim_.now() + 10_ns, this, q);
    return true;
  }
  void wait_for_space(common::MemClient* c) override {
    for (common::MemClient* w : waiters_[refused_]) {
      if (w == c) return;
    }
    waiters_[refused_].push_back(c);
  }

 private:
  void wake(size_t q) {
    std::deque<common::MemClient*> w;
    w.swap(waiters_[q]);
    for (common::MemClient* c : w) c->mem_retry();
  }
  void open(uint64_t) { wake(0); }
  void complete(uint64_t q) {
    const common::MemRequest req = busy_[q].front();
    busy_[q].pop_front();
    wake(q);
    req.client->mem_done(req);
  }
  Simulator& sim_;
  Tick open_at_;
  size_t capacity_;
  size_t refused_ = 0;
  std::deque<common::MemRequest> busy_[2];
  std::deque<common::MemClient*> waiters_[2];
};

class Recorder final : public AccessDone {
 public:
  explicit Recorder(Simulator& sim) : sim_(sim) {}
  void access_done(uint64_t tag) override {
    if (tag >= done_at.size()) done_at.resize(tag + 1, Tick::max());
    EXPECT_EQ(done_at[tag], Tick::max()) << "access " << tag << " completed twice";
    done_at[tag] = sim_.now();
    ++count;
  }
  std::vector<Tick> done_at;
  size_t count = 0;

 private:
  Simulator& sim_;
};

// Bypass mode: accesses to the open queue pass the blocked ones (no head-of-line blocking), slot
// ids are recycled while blocked accesses sit ahead of them, and every access completes exactly
// once.
TEST(MemStream, BypassPassesBlockedAccessesAndCompletesEachOnce) {
  Simulator sim;
  const Tick open_at = Tick::from_ps(5'000'000);  // 5 us
  TwoQueueTarget target(sim, open_at, 2);
  Recorder rec(sim);
  MemStream stream(target, 1024, 8, 0, /*bypass=*/16);
  constexpr uint64_t kAccesses = 200;
  for (uint64_t i = 0; i < kAccesses; ++i) {
    Access a;
    a.addr = (i % 5 == 0 ? 0 : 4096) + 8192 * i;  // every fifth one to the closed queue
    a.bytes = 2048;                               // two chunks
    a.done = &rec;
    a.tag = i;
    stream.submit(a);
  }
  sim.run();
  ASSERT_EQ(rec.count, kAccesses);
  EXPECT_EQ(stream.pending_accesses(), 0u);
  for (uint64_t i = 0; i < kAccesses; ++i) {
    if (i % 5 == 0) {
      EXPECT_GE(rec.done_at[i], open_at) << i;
    } else if (i < 8) {
      EXPECT_LT(rec.done_at[i], open_at) << i << " waited behind a blocked access";
    }
  }
}

}  // namespace
}  // namespace t3sim::gpu
