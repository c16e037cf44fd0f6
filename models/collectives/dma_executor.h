// DMA executor: runs a schedule on the GPUs' copy engines, with no CU. Every send of an op becomes
// one DMA descriptor that reads the slice from local HBM and writes it straight into the receiving
// op's place in the peer's data buffer; a reduction is an NMC UPDATE there (the forwarded partial
// sum is added in memory: no receive buffer, no CU, no read-modify-write). An op starts when every
// slice it receives has landed and its `dep` is done; ops of a lane are otherwise independent.
// Without NMC only all-gather runs (ConfigError at construction otherwise): a reduction would need
// a CU. Source: T3 §3.4-3.5 (DMA + NMC reduce-scatter); DMA collectives (measurements.md §4).
// Contract: as CollectiveExecutor; per-descriptor costs come from the DMA engines (gpu_spec.h).
#pragma once

#include <cstdint>
#include <vector>

#include "models/collectives/executor.h"
#include "models/gpu/mem_stream.h"

namespace t3sim::collectives {

class DmaExecutor final : public CollectiveExecutor, public gpu::AccessDone {
 public:
  explicit DmaExecutor(ExecContext ctx);
  void start() override;
  bool finished() const override { return finished_; }
  std::string progress() const override;
  void access_done(uint64_t tag) override;

 private:
  struct OpState {
    uint16_t recv_left = 0;   // slices still to land
    uint16_t sends_left = 0;  // descriptors still in flight
    uint16_t contrib = 0;     // partial sums UPDATEd into this op's data by its senders
    bool started = false;
    bool done = false;
  };
  void try_start(uint32_t op);
  void start_op(uint32_t op);
  void op_done(uint32_t op);
  void landed(uint32_t op, uint32_t k);
  gpu::DmaDescriptor descriptor(uint32_t op, uint32_t k) const;

  ExecContext x_;
  std::vector<OpState> state_;
  std::vector<uint32_t> match_first_;  // op -> first index into match_
  std::vector<uint32_t> match_;        // (op, send k) -> receiving op
  std::vector<uint32_t> dependents_first_;
  std::vector<uint32_t> dependents_;
  std::vector<int> op_gpu_;
  size_t ops_left_ = 0;
  bool finished_ = false;
};

}  // namespace t3sim::collectives
