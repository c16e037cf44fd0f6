// Test doubles for the collectives library: a bandwidth-and-latency HBM (one serialising queue per
// GPU, counting bytes by command and traffic class) and a switch-like fabric (per-GPU egress and
// ingress serialisation plus a fixed latency, FIFO per pair), assembled with the real RemoteMemory,
// MemStream and DmaEngines into a gpu::Machine. Small and exact, so tests can predict timings.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/collectives/library.h"
#include "models/common/fabric_api.h"
#include "models/common/memory.h"
#include "models/gpu/machine.h"
#include "sim/component.h"
#include "sim/config.h"
#include "sim/simulator.h"

namespace t3sim::collectives::testing {

class FakeHbm final : public Component, public common::MemTarget {
 public:
  FakeHbm(Simulator& sim, Component* parent, std::string name, Bandwidth bw, Duration latency)
      : Component(sim, parent, std::move(name)), bw_(bw), latency_(latency) {}
  bool try_issue(const common::MemRequest& req) override {
    const Tick start = max(now(), free_at_);
    free_at_ = start + transfer_time(Bytes(req.bytes), bw_);
    bytes_[static_cast<size_t>(req.cls)][static_cast<size_t>(req.cmd)] += req.bytes;
    uint32_t slot;
    if (free_.empty()) {
      slot = static_cast<uint32_t>(reqs_.size());
      reqs_.push_back(req);
    } else {
      slot = free_.back();
      free_.pop_back();
      reqs_[slot] = req;
    }
    sim().call_at<FakeHbm, &FakeHbm::complete>(free_at_ + latency_, this, slot);
    return true;
  }
  void wait_for_space(common::MemClient*) override {}
  uint64_t bytes(common::TrafficClass c, common::MemCmd m) const {
    return bytes_[static_cast<size_t>(c)][static_cast<size_t>(m)];
  }

 private:
  void complete(uint64_t slot) {
    const common::MemRequest r = reqs_[slot];
    free_.push_back(static_cast<uint32_t>(slot));
    if (r.client) r.client->mem_done(r);
  }
  Bandwidth bw_;
  Duration latency_;
  Tick free_at_{};
  std::vector<common::MemRequest> reqs_;
  std::vector<uint32_t> free_;
  std::array<std::array<uint64_t, 3>, common::kNumTrafficClasses> bytes_{};
};

class FakeFabric final : public Component, public common::FabricApi {
 public:
  FakeFabric(Simulator& sim, Component* parent, int gpus, Bandwidth bw, Duration latency)
      : Component(sim, parent, "fabric"),
        n_(gpus),
        bw_(bw),
        latency_(latency),
        egress_(static_cast<size_t>(gpus)),
        ingress_(static_cast<size_t>(gpus)) {}
  int num_gpus() const override { return n_; }
  void send(int src, int dst, Bytes bytes, common::FabricReceiver* rx, uint64_t tag) override {
    Tick& out = egress_[static_cast<size_t>(src)];
    out = max(now(), out) + transfer_time(bytes, bw_);
    Tick& in = ingress_[static_cast<size_t>(dst)];
    in = max(out + latency_, in + transfer_time(bytes, bw_));
    msgs_.push_back(Msg{rx, tag});
    sim().call_at<FakeFabric, &FakeFabric::arrive>(in, this, msgs_.size() - 1);
  }
  Bandwidth path_bandwidth(int, int) const override { return bw_; }
  Duration path_latency(int, int) const override { return latency_; }
  int hops(int, int) const override { return 2; }

 private:
  struct Msg {
    common::FabricReceiver* rx;
    uint64_t tag;
  };
  void arrive(uint64_t i) { msgs_[i].rx->delivered(msgs_[i].tag); }
  int n_;
  Bandwidth bw_;
  Duration latency_;
  std::vector<Tick> egress_;
  std::vector<Tick> ingress_;
  std::vector<Msg> msgs_;
};

struct MachineOptions {
  int gpus = 8;
  Bandwidth link = Bandwidth::gbps(100);
  Duration link_latency = Duration::ns(500);
  Bandwidth hbm = Bandwidth::gbps(2000);
  Duration hbm_latency = Duration::ns(100);
  Bytes cu_window = Bytes::kib(64);
  uint32_t cus = 80;
  bool nmc = false;
};

// A Machine of fakes; owns everything it points to.
class TestMachine {
 public:
  TestMachine(Simulator& sim, const MachineOptions& o);
  gpu::Machine& machine() { return m_; }
  FakeHbm& hbm(int g) { return *hbm_[static_cast<size_t>(g)]; }
  uint64_t bytes(common::TrafficClass c, common::MemCmd m) const;  // summed over GPUs

 private:
  gpu::GpuSpec spec_;
  std::unique_ptr<FakeFabric> fabric_;
  std::vector<std::unique_ptr<FakeHbm>> hbm_;
  std::unique_ptr<gpu::RemoteMemory> remote_;
  std::vector<std::unique_ptr<gpu::MemStream>> dma_reads_;
  std::vector<std::unique_ptr<gpu::DmaEngines>> dma_;
  std::vector<std::unique_ptr<gpu::CuPool>> cus_;
  std::vector<std::unique_ptr<gpu::AddressAllocator>> alloc_;
  gpu::Machine m_;
};

// A LibraryConfig from JSON overrides of the defaults.
LibraryConfig library(const nlohmann::json& over = nlohmann::json::object());

}  // namespace t3sim::collectives::testing
