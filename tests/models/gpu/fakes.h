// Test doubles for the GPU model's unit tests: a DRAM target with a fixed latency and a bounded
// number of requests in flight (FIFO completion), a two-channel address map, a client that counts
// completions and retries, a fabric that must never be used, and an inline GPU spec (no presets).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <stdexcept>

#include "models/common/fabric_api.h"
#include "models/common/memory.h"
#include "models/gpu/gpu_spec.h"
#include "sim/simulator.h"

namespace t3sim::gpu::testing {

using namespace t3sim::literals;  // NOLINT(google-build-using-namespace): test literals

class FakeDram final : public common::MemTarget {
 public:
  FakeDram(Simulator& sim, Duration latency, uint32_t capacity)
      : sim_(sim), latency_(latency), capacity_(capacity) {}
  bool try_issue(const common::MemRequest& req) override {
    if (queue_.size() >= capacity_) return false;
    queue_.push_back({sim_.now() + latency_, req});
    bytes[static_cast<size_t>(req.cls)] += req.bytes;
    if (req.l2_hit) ++hits_seen;
    sim_.call_at<FakeDram, &FakeDram::complete>(queue_.back().done, this, 0);
    return true;
  }
  void wait_for_space(common::MemClient* c) override {  // one place per client (MemTarget)
    for (common::MemClient* w : waiters_) {
      if (w == c) return;
    }
    waiters_.push_back(c);
  }
  std::array<uint64_t, common::kNumTrafficClasses> bytes{};
  uint64_t hits_seen = 0;

 private:
  void complete(uint64_t) {
    const common::MemRequest req = queue_.front().req;
    queue_.pop_front();
    if (!waiters_.empty()) {
      common::MemClient* c = waiters_.front();
      waiters_.pop_front();
      c->mem_retry();
    }
    if (req.client != nullptr) req.client->mem_done(req);
  }
  struct Entry {
    Tick done;
    common::MemRequest req;
  };
  Simulator& sim_;
  Duration latency_;
  uint32_t capacity_;
  std::deque<Entry> queue_;
  std::deque<common::MemClient*> waiters_;
};

// Two channels interleaved at 4 KiB.
class TwoChannels final : public common::ChannelMap {
 public:
  uint32_t channels() const override { return 2; }
  uint32_t channel(uint64_t addr) const override { return static_cast<uint32_t>(addr / 4096 % 2); }
  uint64_t interleave() const override { return 4096; }
};

class CountingClient final : public common::MemClient {
 public:
  void mem_done(const common::MemRequest& req) override {
    ++done;
    bytes += req.bytes;
  }
  void mem_retry() override { ++retries; }
  int done = 0;
  int retries = 0;
  uint64_t bytes = 0;
};

class NoFabric final : public common::FabricApi {
 public:
  int num_gpus() const override { return 1; }
  void send(int, int, Bytes, common::FabricReceiver*, uint64_t) override {
    throw std::logic_error("a local GEMM must not use the fabric");
  }
  Bandwidth path_bandwidth(int, int) const override { return Bandwidth::gbps(1); }
  Duration path_latency(int, int) const override { return 1_us; }
  int hops(int, int) const override { return 1; }
};

// A 4-CU GPU at 1 GHz, 1024 FLOP/cycle/CU, 128x128 tiles, 3 stages of BK 32, L2 front end on.
inline GpuSpec small_gpu() {
  GpuSpec s;
  s.cus = 4;
  s.clock = Frequency::hz(1'000'000'000);
  s.flops_per_cu_cycle = 1024;
  s.efficiency = 1.0;
  s.l2 = 16_MiB;
  s.pipeline = Pipeline::kStages;
  s.stages = 3;
  s.bk = 32;
  s.partition.enabled = true;
  s.partition.hit_bandwidth = Bandwidth::gbps(1000);
  s.partition.hit_latency = 100_ns;
  s.partition.miss_queue = 64_KiB;
  s.partition.mshr = 64_KiB;
  s.txn = 4_KiB;
  return s;
}

}  // namespace t3sim::gpu::testing
