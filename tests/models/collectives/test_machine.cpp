#include "test_machine.h"

namespace t3sim::collectives::testing {

TestMachine::TestMachine(Simulator& sim, const MachineOptions& o) {
  spec_.cus = o.cus;
  spec_.txn = Bytes::kib(4);
  spec_.cu_window = o.cu_window;
  spec_.dma = gpu::DmaSpec{2, Bandwidth::gbps(200), Duration::ns(500), Bytes::kib(64), 4};
  fabric_ = std::make_unique<FakeFabric>(sim, &sim.root(), o.gpus, o.link, o.link_latency);
  std::vector<common::MemTarget*> targets;
  for (int g = 0; g < o.gpus; ++g) {
    hbm_.push_back(std::make_unique<FakeHbm>(sim, &sim.root(), "hbm" + std::to_string(g), o.hbm,
                                             o.hbm_latency));
    targets.push_back(hbm_.back().get());
  }
  remote_ =
      std::make_unique<gpu::RemoteMemory>(sim, &sim.root(), "remote", *fabric_, targets, 4096, 256);
  m_.fabric = fabric_.get();
  m_.remote = remote_.get();
  m_.has_nmc = o.nmc;
  for (int g = 0; g < o.gpus; ++g) {
    dma_reads_.push_back(std::make_unique<gpu::MemStream>(*hbm_[static_cast<size_t>(g)], 4096, 256,
                                                          static_cast<uint16_t>(g)));
    dma_.push_back(std::make_unique<gpu::DmaEngines>(sim, &sim.root(), "dma" + std::to_string(g), g,
                                                     spec_.dma, *dma_reads_.back(), *remote_));
    cus_.push_back(std::make_unique<gpu::CuPool>(o.cus));
    alloc_.push_back(std::make_unique<gpu::AddressAllocator>());
    m_.gpus.push_back(gpu::GpuNode{g, &spec_, hbm_.back().get(), dma_.back().get(),
                                   cus_.back().get(), alloc_.back().get()});
  }
}

uint64_t TestMachine::bytes(common::TrafficClass c, common::MemCmd m) const {
  uint64_t sum = 0;
  for (const auto& h : hbm_) sum += h->bytes(c, m);
  return sum;
}

LibraryConfig library(const nlohmann::json& over) {
  const ConfigDoc doc = config_from_json(over, "<test>");
  return bind_library(ConfigNode::root(doc));
}

}  // namespace t3sim::collectives::testing
