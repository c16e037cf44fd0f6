// A GEMM kernel on an inline GPU spec (tests/models/gpu/fakes.h): a fake DRAM with a fixed latency
// behind the memory-partition front end, read and store streams, a remote memory that must stay
// unused. No presets, no system: the kernel's own behaviour (pipeline, grid) in isolation.
#pragma once

#include <memory>
#include <utility>

#include "models/gpu/gemm_kernel.h"
#include "models/gpu/mem_partition.h"
#include "tests/models/gpu/fakes.h"

namespace t3sim::gpu::testing {

struct Rig {
  Rig(const GpuSpec& spec, Duration dram_latency, uint32_t dram_slots, GemmShape shape,
      GemmHooks* hooks = nullptr, uint32_t split_k = 1)
      : dram(sim, dram_latency, dram_slots),
        part(sim, &sim.root(), "l2", spec.partition, Bandwidth{}, dram, map),
        reads(part, static_cast<uint32_t>(spec.txn.count()), 256, 0),
        stores(part, static_cast<uint32_t>(spec.txn.count()), 256, 0),
        remote(sim, &sim.root(), "remote", fabric, {&part}, 4096, 64) {
    const uint64_t a = 0;
    const uint64_t b = shape.m * shape.k * 2;
    const uint64_t c = b + shape.k * shape.n * 2;
    GemmPlan plan =
        local_gemm_plan(shape, 2, spec.tile_m, spec.tile_n, spec.group_m, 0, a, b, c, split_k);
    kernel = std::make_unique<GemmKernel>(sim, &sim.root(), "gemm", 0, spec, std::move(plan), reads,
                                          stores, remote, hooks);
  }
  Duration run(uint32_t cus) {
    kernel->launch(cus);
    sim.run();
    sim.finish();
    return kernel->done() - kernel->start();
  }
  Simulator sim;
  TwoChannels map;
  NoFabric fabric;
  FakeDram dram;
  MemPartition part;
  MemStream reads;
  MemStream stores;
  RemoteMemory remote;
  std::unique_ptr<GemmKernel> kernel;
};

}  // namespace t3sim::gpu::testing
