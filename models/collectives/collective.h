// Collective: one collective operation (kinds.h) over a group of GPUs of a Machine. It
// resolves algorithm (ring, direct, hierarchical), protocol (Simple, LL128, LL; auto by size) and
// executor (CU kernels, DMA engines), builds the schedule (schedule.h) and runs it. `bytes` is
// nccl-tests' S, the whole per-GPU buffer; data live in place in one buffer per GPU (`buffer_addr`,
// e.g. T3's GEMM output, or allocated). Contract: start() once;
// CollectiveDone::collective_done(tag) exactly once when every GPU has its result; finish() throws
// ModelError if a started collective never completed (naming where it stands) or if payload sent !=
// payload received.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/collectives/channel_plan.h"
#include "models/collectives/executor.h"
#include "models/collectives/library.h"
#include "models/collectives/node_rails.h"
#include "models/collectives/schedule.h"
#include "models/collectives/tuner.h"
#include "models/common/mirror.h"
#include "models/gpu/machine.h"
#include "sim/component.h"

namespace t3sim::collectives {

struct CollectiveSpec {
  Kind kind = Kind::kAllReduce;
  uint64_t bytes = 0;       // S (nccl-tests size)
  Algo algo = Algo::kAuto;  // kAuto: the library's "algorithm", then the size/topology rule
  Protocol proto = Protocol::kAuto;  // kAuto: the library's "protocol", then by size
  std::optional<Executor> exec;      // empty: the library's "executor"
  uint32_t channels = 0;             // 0: the library's "channels"
  std::vector<int> group;            // GPU ids in ring order; empty = every GPU
  uint32_t elem_bytes = 4;
  int root = 0;                       // broadcast, reduce: the root's rank in the group
  std::vector<uint64_t> buffer_addr;  // per group member; empty = allocate S on each GPU
  // Folded run (models/common/mirror.h): only the representatives' lanes run (collectives/fold.h);
  // needs the whole machine as the group in order and a CU executor, else common::FoldError.
  bool fold = false;
  // The rotations to fold under (per_node 0: the machine's GPUs as one cyclic group); the machine
  // must simulate their representatives (mirror.h), else common::FoldError. The caller folds
  // RemoteMemory with Collective::fold_rotation().
  common::GpuRotation fold_rotation{1, 0};
};

class CollectiveDone {
 public:
  virtual ~CollectiveDone() = default;
  virtual void collective_done(uint64_t tag) = 0;
};

class Collective : public Component, public ExecutorDone {
 public:
  // Throws ConfigError for an impossible request (bad group, size not divisible, DMA reduction
  // without NMC, hierarchical on one node).
  Collective(Simulator& sim, Component* parent, std::string name, gpu::Machine& machine,
             const LibraryConfig& lib, CollectiveSpec spec);
  ~Collective() override;

  void start(CollectiveDone* done, uint64_t tag);
  bool done() const { return done_; }
  Tick started() const { return started_; }
  Tick finished() const { return finished_; }
  Duration elapsed() const { return finished_ - started_; }

  Algo algo() const { return algo_; }
  Protocol protocol() const { return proto_; }
  Executor executor() const { return exec_; }
  uint32_t channels() const { return channels_; }
  const std::vector<int>& group() const { return group_; }
  const Schedule& schedule() const { return schedule_; }
  // Folded: the rotation the schedule folded under (its reps() GPUs ran).
  const common::GpuRotation& fold_rotation() const { return fold_rotation_; }
  // Payload bytes this GPU pushed over the fabric / that landed in its memory.
  uint64_t bytes_sent(int gpu) const { return exec_impl_->bytes_sent(gpu); }
  uint64_t bytes_received(int gpu) const { return exec_impl_->bytes_received(gpu); }

  void executor_done() override;
  void finish() override;

 private:
  void resolve(const CollectiveSpec& spec);
  // The algorithm and protocol `auto` leaves open, chosen by NCCL's tuner (collective_tuner.cpp)
  // or, for a library without one, by its size thresholds.
  void resolve_auto(bool multi_node);
  void resolve_by_thresholds(bool multi_node);
  TunerGroup tuner_group(bool multi_node) const;
  // Builds schedule_ (folded when spec.fold); ScheduleTooLarge past schedule_limits.h's bounds.
  void build(const CollectiveSpec& spec);
  Geometry geometry(const CollectiveSpec& spec) const;
  bool fully_connected() const;
  // Ring orders come from the channel planner: ring_direction "planned" and the group in one node
  // (rings across nodes take their rails instead, rails()).
  bool planned_rings() const;
  ChannelPlan plan() const;
  // The NICs a ring across the group's nodes crosses on (node_rails.h); empty rotations in one
  // node, or where the fabric exposes no links.
  NodeRails rails() const;
  // Rings across nodes: every channel on its own rail (ring_direction "planned") instead of the
  // group's order.
  bool rail_rings_apply() const;
  bool one_switch() const;  // every group member two hops (one switch) from the first
  // Builds schedule_ folded under `rot` (FoldError if it does not fold or the fabric's routes
  // are not the same from every GPU).
  void fold(Geometry g, const common::GpuRotation& rot);

  gpu::Machine& machine_;
  LibraryConfig lib_;
  Kind kind_;
  uint64_t bytes_;
  Algo algo_ = Algo::kRing;
  Protocol proto_ = Protocol::kSimple;
  Executor exec_ = Executor::kCu;
  uint32_t channels_ = 1;
  std::vector<int> group_;
  Schedule schedule_;
  int fold_gpus_ = 0;  // folded: the group size the representatives stand for
  common::GpuRotation fold_rotation_;
  std::vector<uint64_t> fold_offsets_;  // folded NVLS: fold_offsets() (collectives/fold.h)
  std::unique_ptr<CollectiveExecutor> exec_impl_;
  CollectiveDone* done_cb_ = nullptr;
  uint64_t tag_ = 0;
  bool running_ = false;
  bool done_ = false;
  Tick started_{};
  Tick finished_{};
  Counter ops_;
  Counter sent_;
  Counter wire_;
  Counter time_ps_;
};

}  // namespace t3sim::collectives
