// Machine: the view of an assembled multi-GPU system that workloads (collectives, T3, GEMMs) use,
// without seeing how it was built (models/system builds it). Per GPU: its spec, its HBM as a
// MemTarget, its DMA engines, a CU pool, and a bump allocator for buffer addresses; plus the
// fabric, the remote-memory path, and whether the HBM supports near-memory UPDATEs. Contract:
// pointers stay valid for the Simulator's lifetime; CU reservations must be released.
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/fabric_api.h"
#include "models/common/memory.h"
#include "models/gpu/dma_engine.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/l2_residency.h"
#include "models/gpu/power.h"
#include "models/gpu/remote_memory.h"
#include "sim/errors.h"

namespace t3sim::gpu {

class CuPool {
 public:
  explicit CuPool(uint32_t total) : total_(total), free_(total) {}
  uint32_t total() const { return total_; }
  uint32_t available() const { return free_; }
  void acquire(uint32_t n) {
    if (n > free_)
      throw ModelError("cu-pool", "acquire of " + std::to_string(n) + " CUs, only " +
                                      std::to_string(free_) + " free");
    free_ -= n;
  }
  void release(uint32_t n) { free_ += n; }

 private:
  uint32_t total_;
  uint32_t free_;
};

// Hands out non-overlapping buffer addresses in one GPU's HBM, aligned to 4 KiB.
class AddressAllocator {
 public:
  uint64_t allocate(uint64_t bytes) {
    const uint64_t at = next_;
    next_ += (bytes + 4095) / 4096 * 4096;
    return at;
  }

 private:
  uint64_t next_ = 0;
};

struct GpuNode {
  int id = 0;
  const GpuSpec* spec = nullptr;
  common::MemTarget* hbm = nullptr;
  DmaEngines* dma = nullptr;
  CuPool* cus = nullptr;
  AddressAllocator* alloc = nullptr;
  ClockControl* clock = nullptr;  // power controller (nullptr: fixed clock)
  L2Residency* l2 = nullptr;      // the L2 other traffic shares with GEMMs (nullptr: none modelled)
};

struct Machine {
  std::vector<GpuNode> gpus;
  common::FabricApi* fabric = nullptr;
  RemoteMemory* remote = nullptr;
  bool has_nmc = false;
  int size() const { return static_cast<int>(gpus.size()); }
};

}  // namespace t3sim::gpu
