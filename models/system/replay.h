// Trace replay: runs a workload trace (models/workload/trace.h) on a system by giving every op a
// duration from the models and list-scheduling the ops on their in-order streams. Fidelity: each op
// (or fused GEMM + all-reduce pair) is simulated in isolation on the whole machine; ops that
// overlap in the schedule do not contend for CUs, HBM or links. Times are per GPU under symmetric
// TP (every rank runs the same trace). Source: traces/README.md (stream and dependency semantics);
// the T3 sublayer pattern from t3-paper.md §4.2.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/system/mode.h"
#include "models/workload/trace.h"
#include "sim/config.h"

namespace t3sim::system {

struct ReplayOptions {
  Mode mode = Mode::kSequential;  // how fused GEMM + all-reduce pairs execute
  uint32_t ar_cus = 16;           // cu-split: CUs given to the all-reduce kernel
  uint32_t decompose_chunks = 4;  // decomposed: GEMM chunks
  bool strict = false;            // a communication op that cannot be simulated is an error
  // Called after each op is placed (done, total), for a progress line; may be empty.
  std::function<void(size_t, size_t)> progress{};
};

struct ReplayOp {
  std::string id;
  workload::OpKind kind = workload::OpKind::kFixed;
  int stream = 0;
  double start_us = 0;
  double duration_us = 0;
  std::string model;       // where the duration came from: "gemm", "fused", "collective", ...
  std::string fused_with;  // the partner's id in a fused pair, else ""
  std::optional<double> measured_us;  // copied from the trace, for comparison
  double idle_us = 0;                 // the trace's idle_us, waited before start_us
  double wait_us = 0;  // multi-rank replay: waited inside the op for other ranks (replay_ranks.h)
  double end_us() const { return start_us + duration_us; }
};

struct ReplayResult {
  std::vector<ReplayOp> ops;  // in trace order
  double total_us = 0;        // end of the last op
  double idle_us = 0;         // sum of the ops' idle_us (kept from an imported profile)
  Mode mode = Mode::kSequential;
  std::string system;
  int gpus = 0;
  uint64_t simulations = 0;  // distinct simulations run
  uint64_t memo_hits = 0;    // ops (or pairs) that reused an identical simulation
  double wall_s = 0;
  std::vector<std::string> warnings;  // e.g. a fusing mode that fused nothing
  double comm_us = 0;                 // time during which some communication op runs
  uint64_t comm_ops = 0;              // collectives, sends and recvs
  uint64_t unsimulated_comm_ops = 0;  // of them, kept at their measured time (else 0)
  double unsimulated_comm_us = 0;
};

// Replays `trace` on the system of `system_doc`; `file` labels errors.
//
// Contract: durations come from the models:
//  - gemm: run_piece(kGemm) for its shape; a batched GEMM (batch b > 1) runs as one kernel of
//    b products, each with its own A, B and C (tiles x b work-groups); the dtype picks the matrix
//    rate (fp16/bf16: flops_per_cu_cycle; tf32, fp32 (SIMT), fp8/int8: the preset's
//    flops_per_cu_cycle_<p>; fp64 and other integers run at the fp32 rate). A GEMM whose rate
//    the preset lacks is a ConfigError naming the op;
//  - all_reduce / reduce_scatter / all_gather: the ring collective alone (run_collective) over
//    `bytes` of the op's dtype (default FP16), rounded up to whole elements per rank (< element x
//    GPUs bytes); broadcast / reduce (from `root`) / all_to_all: the collectives library's choice
//    as in `t3sim nccl-tests` (library_collective.h), same rounding;
//  - send / recv: the library's send/recv with every rank sending `bytes` to rank + peer
//    (replay_p2p.h matches each recv with a send; a matched recv ends when its send has). A peer
//    offset that is not coprime with the group is not simulated: kept at its measured time (else
//    0) and counted in unsimulated_comm_*, or a ConfigError with options.strict;
//  - memory: `bytes` split evenly into reads and writes streamed through GPU 0's HBM with the GPU's
//    load/store windows (exact up to 1 GiB; larger ops are scaled linearly from a 1 GiB run);
//  - fixed: its duration_us, exactly.
// A GEMM whose consumers are one all_reduce of exactly its output (plus ops that wait for that
// all_reduce anyway) is fused with it: the pair runs as ONE run_sublayer in options.mode. So is a
// GEMM and the reduce-scatter of its output (sequence parallelism): the same run, ending when the
// reduce-scatter does (the all-gather is a separate op of an SP trace). A mode other than
// sequential that fuses no pair adds a warning to the result. The GEMM
// is reported from the pair's start for the mode's GEMM time, the all_reduce from the GEMM's end
// for the exposed rest (so the pair spans the sublayer's total). The pair starts once both ops'
// other constraints are met (their deps and both streams free), since the fused run occupies
// compute and communication from its first cycle. Fusion is skipped where it would deadlock.
// Scheduling: each stream runs its ops in trace order; an op starts at the latest end of its deps
// and of the previous op on its stream, plus its idle_us (a fused pair: the leading op's); time 0
// is the first ready time. Identical simulations (kind,
// shape or bytes, element size, mode) run once per replay.
// Errors (ConfigError, `file` + pointer): a tp_group or metadata.tp other than the system's GPU
// count (suggesting --set gpus=N or a matching system), and stream orders that
// deadlock against the deps (op A waits for B which is queued behind A on its stream).
ReplayResult replay_trace(const ConfigDoc& system_doc, const workload::Trace& trace,
                          const std::string& file, const ReplayOptions& options = {});

// {"ops": [{"id", "kind", "stream", "start_us", "duration_us", "end_us", "model",
// "fused_with"?, "measured_us"?, "idle_us"?}...], "total_us", "idle_us", "mode", "system", "gpus",
// "simulations", "memo_hits", "wall_s", "comm_us", "comm_ops", "unsimulated_comm_ops",
// "unsimulated_comm_us", "warnings"}.
nlohmann::ordered_json to_json(const ReplayResult& result);

}  // namespace t3sim::system
