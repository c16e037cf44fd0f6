// L2Residency: the GPU's L2 as seen by the caches of the GEMMs running on it. A GEMM's cache
// (l2_cache.h SliceCache) keeps its reusable input slices; every other access that allocates in
// the L2 takes capacity from them: communication reads and writes (collective kernels, DMA
// engines, remote writes arriving over the fabric), co-running copy kernels. The memory partition
// (mem_partition.h), which every access to the GPU's memory passes, reports each accepted request
// here. An access allocates as its MemRequest::l2 policy says; kDefault takes the GPU's policy
// for communication (gpu_spec.h PartitionSpec::comm_policy). A GEMM's own loads and stores are
// its cache's business, NMC UPDATEs are performed at the memory and never allocate, and L2 hits
// allocate nothing new.
// Fidelity: each running GEMM's cache sees all foreign bytes (two GEMMs on one GPU do not evict
// each other's slices); lines are not tracked for communication, only the capacity they take
// (a foreign line is never re-read from the L2). Contract: a cache attached must be detached
// before it is destroyed.
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/memory.h"
#include "models/gpu/l2_cache.h"

namespace t3sim::gpu {

class L2Residency {
 public:
  explicit L2Residency(common::L2Policy comm_policy) : comm_policy_(comm_policy) {}
  void attach(SliceCache* cache);
  void detach(SliceCache* cache);
  // A request the L2 accepted.
  void passed(const common::MemRequest& req);
  // Bytes that allocated normally / as evict-first, over the run.
  uint64_t allocated_bytes() const { return allocated_; }
  uint64_t evict_first_bytes() const { return evict_first_; }

 private:
  common::L2Policy comm_policy_;
  std::vector<SliceCache*> caches_;
  uint64_t allocated_ = 0;
  uint64_t evict_first_ = 0;
};

}  // namespace t3sim::gpu
