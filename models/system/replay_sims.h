// The simulations behind a trace replay (replay.h): each op's model run, memoised so identical
// GEMMs, fused pairs, collectives and memory ops run once per replay; and how a trace op maps onto
// the GPU model (shape with batch and precision, element size). Internal to replay.cpp.
// Contract: deterministic; a memo key holds everything its simulation depends on.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "models/collectives/library.h"
#include "models/gpu/gemm_plan.h"
#include "models/system/replay.h"

namespace t3sim::system::replay_detail {

uint32_t elem_bytes(const workload::Op& op);
// The matrix rate a GEMM of this element type runs at (see replay.h).
gpu::Precision precision_of(const workload::Op& op);
// A batched GEMM runs as `batch` products in one kernel (see replay.h).
gpu::GemmShape gemm_shape(const workload::Op& op);
uint64_t output_bytes(const workload::Op& gemm);
// The collectives library's kind for a communication op (send and recv: send/recv).
std::optional<collectives::Kind> library_kind(workload::OpKind kind);
// Whether every rank sending to rank + peer forms one cycle over `gpus` ranks (gcd 1), the
// library's send/recv pattern over a reordered group; other peers are not simulated.
bool peer_reachable(int peer, int gpus);

class Simulations {
 public:
  struct Times {
    double total_us = 0;
    double gemm_us = 0;
  };
  Simulations(const ConfigDoc& doc, const ReplayOptions& o, int gpus)
      : doc_(doc), options_(o), gpus_(static_cast<uint64_t>(gpus)) {}

  Times gemm(const workload::Op& op);
  // A GEMM fused with the all-reduce (or, sequence-parallel, the reduce-scatter) of its output.
  Times fused(const workload::Op& gemm, workload::OpKind collective);
  // A communication op through the collectives library: all-reduce, reduce-scatter and all-gather
  // as the sublayer runner's ring (run_collective), the other kinds as `t3sim nccl-tests` runs
  // them; send/recv as the library's send/recv with every rank sending to rank + peer
  // (peer_reachable() must hold).
  Times collective(const workload::Op& op);
  Times memory(const workload::Op& op);
  // A collective on some of the GPUs (a process group narrower than the system, in group order),
  // or a send/recv between two GPUs (`gpus` = {sender, receiver}), through the collectives
  // library: the multi-rank replay of profiles that name their groups (replay_rank_groups.h).
  Times on_gpus(const workload::Op& op, const std::vector<int>& gpus);
  // The duration of an op that runs on its own.
  double single(const workload::Op& op);
  uint64_t runs = 0;
  uint64_t hits = 0;

 private:
  // The GPUs in the order in which each sends to the next: 0, peer, 2 peer, ... (mod GPUs).
  std::vector<int> peer_group(int peer) const;
  using Key = std::tuple<int, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t>;
  template <class F>
  Times memo(const Key& key, F run) {
    const auto it = memo_.find(key);
    if (it != memo_.end()) {
      ++hits;
      return it->second;
    }
    ++runs;
    return memo_.emplace(key, run()).first->second;
  }
  const ConfigDoc& doc_;
  ReplayOptions options_;
  uint64_t gpus_;
  std::map<Key, Times> memo_;
  std::map<std::pair<Key, std::vector<int>>, Times> group_memo_;
};

}  // namespace t3sim::system::replay_detail
