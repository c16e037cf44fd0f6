// The interface between a Collective and the engine that runs its schedule: CU kernels
// (cu_executor.h) or DMA engines (dma_executor.h). Both read and write the GPUs' data buffers at
// `data_addr` and report per-GPU payload bytes sent and received over the fabric.
// Contract: start() is called once; the executor calls ExecutorDone::executor_done() exactly once,
// after every op of the schedule has completed and every resource it took has been given back.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/library.h"
#include "models/collectives/schedule.h"
#include "models/gpu/machine.h"
#include "sim/simulator.h"

namespace t3sim::collectives {

class ExecutorDone {
 public:
  virtual ~ExecutorDone() = default;
  virtual void executor_done() = 0;
};

struct ExecContext {
  Simulator& sim;
  gpu::Machine& machine;
  const Schedule& schedule;
  const ProtocolSpec& proto;
  const LibraryConfig& lib;
  std::vector<uint64_t> data_addr;  // by GPU id: base of the collective's data buffer
  ExecutorDone* done = nullptr;
  std::string path;  // of the owning component, for error messages
  // Folded run (models/common/mirror.h): the size of the group GPU 0 stands for (0: not folded)
  // and, for NVLS, fold_offsets() of the unfolded schedule.
  int fold_gpus = 0;
  std::vector<uint64_t> fold_offsets;
};

// The GPUs a schedule's lanes run on, in order of first appearance, each GPU id's position in
// that list (-1: not in the group) and the channel count (highest lane channel + 1).
struct LaneGroup {
  std::vector<int> gpus;
  std::vector<int> pos;  // by GPU id, machine_gpus entries
  uint32_t channels = 0;
};
inline LaneGroup lane_group(const Schedule& s, int machine_gpus) {
  LaneGroup g;
  g.pos.assign(static_cast<size_t>(machine_gpus), -1);
  for (const Lane& l : s.lanes) {
    int& at = g.pos[static_cast<size_t>(l.gpu)];
    if (at < 0) {
      at = static_cast<int>(g.gpus.size());
      g.gpus.push_back(l.gpu);
    }
    g.channels = std::max(g.channels, l.channel + 1);
  }
  return g;
}

class CollectiveExecutor {
 public:
  virtual ~CollectiveExecutor() = default;
  virtual void start() = 0;
  virtual bool finished() const = 0;
  uint64_t bytes_sent(int gpu) const { return sent_[static_cast<size_t>(gpu)]; }
  uint64_t bytes_received(int gpu) const { return received_[static_cast<size_t>(gpu)]; }
  uint64_t wire_bytes() const { return wire_; }
  // Where the schedule stands (for deadlock reports); empty once finished.
  virtual std::string progress() const = 0;

 protected:
  explicit CollectiveExecutor(int gpus)
      : sent_(static_cast<size_t>(gpus), 0), received_(static_cast<size_t>(gpus), 0) {}
  std::vector<uint64_t> sent_;
  std::vector<uint64_t> received_;
  uint64_t wire_ = 0;
};

// Memory address of op `op` in GPU `gpu`'s data for peer rank `peer` (per-peer addressing).
inline uint64_t data_address(const ExecContext& x, int gpu, const Op& op, int peer_rank) {
  return x.data_addr[static_cast<size_t>(gpu)] + op.offset +
         op.stride * static_cast<uint64_t>(peer_rank);
}

inline common::TrafficClass read_class(Phase p) {
  return p == Phase::kReduceScatter ? common::TrafficClass::kRsRead : common::TrafficClass::kAgRead;
}
inline common::TrafficClass write_class(Phase p) {
  return p == Phase::kReduceScatter ? common::TrafficClass::kRsWrite
                                    : common::TrafficClass::kAgWrite;
}

}  // namespace t3sim::collectives
