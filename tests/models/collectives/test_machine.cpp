#include "test_machine.h"

namespace t3sim::collectives::testing {

TestMachine::TestMachine(Simulator& sim, const MachineOptions& o) {
  spec_.cus = o.cus;
  spec_.txn = Bytes::kib(4);
  spec_.cu_window = o.cu_window;
  spec_.dma =
      gpu::DmaSpec{2, Bandwidth::gbps(200), Duration::ns(500), Bytes::kib(64), Bytes::kib(256)};
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

// Every required key of the "collectives" object, inline (NCCL's geometry with round costs), so a
// preset edit never moves these tests.
nlohmann::json library_base() {
  nlohmann::json j = {{"channels", 24},
                      {"steps", 8},
                      {"link_efficiency", 0.82},
                      {"ll_max", "512 KiB"},
                      {"ll128_max", "8 MiB"},
                      {"inter_node_latency", "10 us"},
                      {"nvls_chunk", "128 KiB"},
                      {"nvls_min", "2 MiB"},
                      {"nvls_min_ranks", 4},
                      {"tree_max", "4 GiB"},
                      {"tree_min_chunk", "32 KiB"}};
  struct P {
    const char* x;
    const char* buffer;
    const char* channel_bytes;
    int chunk_steps;
    int slice_steps;
    const char* step;
    const char* base;
    double eff;
  };
  for (const P& p : {P{"simple", "4 MiB", "32 KiB", 4, 2, "6 us", "20 us", 1.0},
                     P{"ll128", "4800 KiB", "5 KiB", 1, 1, "4 us", "15 us", 0.9375},
                     P{"ll", "512 KiB", "4 KiB", 1, 1, "0.6 us", "15 us", 0.5}}) {
    const std::string x = p.x;
    j[x + "_buffer"] = p.buffer;
    j[x + "_channel_bytes"] = p.channel_bytes;
    j[x + "_chunk_steps"] = p.chunk_steps;
    j[x + "_slice_steps"] = p.slice_steps;
    j[x + "_step_latency"] = p.step;
    j[x + "_base_latency"] = p.base;
    j[x + "_efficiency"] = p.eff;
  }
  return j;
}

LibraryConfig library(const nlohmann::json& over) {
  nlohmann::json j = library_base();
  for (auto it = over.begin(); it != over.end(); ++it) j[it.key()] = it.value();
  const ConfigDoc doc = config_from_json(j, "<test>");
  return bind_library(ConfigNode::root(doc));
}

}  // namespace t3sim::collectives::testing
