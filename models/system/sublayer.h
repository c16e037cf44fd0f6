// run_sublayer(): one tensor-parallel sublayer (a GEMM whose [M x N] output is all-reduced over
// every GPU of the system) under one execution mode. The stagger, skew and contention at every
// memory controller and link are simulated; when the run is rotation-symmetric only GPU 0 is
// (SublayerSpec::fold, models/common/mirror.h), else all N GPUs explicitly. Composite modes
// (ideal, ideal-nmc) combine runs of the GEMM and the collectives each in isolation.
// Results are per mode: times, DRAM bytes per traffic class summed over GPUs, link bytes, tracker
// counters, simulator events and wall time; optionally the HBM traffic timeline of GPU 0 and a
// Perfetto trace.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/common/memory.h"
#include "models/gpu/gemm_plan.h"
#include "models/system/mode.h"
#include "sim/config.h"

namespace t3sim::system {

struct SublayerSpec {
  gpu::GemmShape shape;           // per-GPU GEMM (M = tokens, N = hidden, K = sliced dimension)
  uint32_t elem_bytes = 2;        // FP16/BF16
  uint32_t ar_cus = 16;           // cu-split: CUs given to the all-reduce kernel
  uint32_t decompose_chunks = 4;  // decomposed: GEMM chunks
  uint64_t seed = 1;
  // Fused modes: stop after the reduce-scatter (the all-gather is not fused and runs after it in
  // every mode, so a caller may add an all-gather piece instead of simulating it again).
  bool include_ag = true;
  // Simulate GPU 0 alone when the run is rotation-symmetric (models/common/mirror.h); runs that
  // are not (DMA collectives, multi-node fabrics) and traced runs simulate every GPU.
  bool fold = true;
};

// Bytes of the GEMM's [M x N] output on one GPU: the all-reduce's size S.
inline uint64_t output_bytes(const SublayerSpec& s) { return s.shape.m * s.shape.n * s.elem_bytes; }

struct RunOptions {
  std::string trace_path;         // Perfetto timeline of the main run ("" = off)
  TimelineOptions trace_options;  // its size bounds (sim/timeline.h)
  bool timeline = false;          // keep GPU 0's HBM traffic timeline
  // Keep the main run's full stats tree (Simulator::dump); a mode composed of separate runs
  // (ideal) keeps config, sim and each run's stats under its name.
  bool stats = false;
  // Hears why a run asked to fold cannot, before every GPU is simulated (a long run at scale).
  std::function<void(const std::string& why)> before_full;
};

struct SublayerResult {
  Mode mode = Mode::kSequential;
  double total_us = 0;
  double gemm_us = 0;        // GEMM alone (its own kernel time in this mode)
  double rs_us = 0;          // reduce-scatter time (standalone where the mode has one)
  double rs_exposed_us = 0;  // time from GEMM end to RS end
  double ag_us = 0;
  std::array<uint64_t, common::kNumTrafficClasses> dram_bytes{};
  uint64_t dram_total = 0;
  uint64_t link_bytes = 0;
  uint64_t tracker_triggers = 0;
  uint32_t tracker_max_occupancy = 0;
  uint64_t tracker_stalls = 0;
  // Share of the GEMM kernels' WG time spent waiting for operands (0 when no GEMM ran).
  double gemm_memory_stall_share = 0;
  uint64_t events = 0;
  double wall_s = 0;
  bool folded = false;     // a folded run (every piece, for composed modes): see simulated_gpus
  int simulated_gpus = 0;  // GPUs whose memory and CUs were simulated (largest over pieces)
  // GPU 0's HBM bytes per class per timeline bin (empty unless requested).
  std::vector<std::array<uint64_t, common::kNumTrafficClasses>> timeline;
  double timeline_bin_us = 0;
  // Perfetto timeline (RunOptions::trace_path): slices, flows and levels past its max_events,
  // counted but not written (0 when no timeline was asked for or nothing was dropped).
  uint64_t trace_events_dropped = 0;
  nlohmann::ordered_json stats;  // main run's stats tree when requested
};

// The sublayer runs (run_sublayer, run_piece, run_collective; so sublayer, sweep, reproduce,
// replay and run) use ring collectives, on the executor each mode names. A system whose
// collectives.algorithm is not "auto" or "ring", or whose collectives.executor is not "cu", would
// be ignored there: ConfigError naming the key (nccl-tests honours both).
void check_sublayer_collectives(const ConfigDoc& system_doc);

SublayerResult run_sublayer(const ConfigDoc& system_doc, const SublayerSpec& spec, Mode mode,
                            const RunOptions& opts = {});

// Result with total_us = the piece's time and its traffic/events (and its stats tree if asked).
SublayerResult run_piece(const ConfigDoc& system_doc, const SublayerSpec& spec, Piece piece,
                         const RunOptions& opts = {});

// Collective operations and executors the mode runners and run_collective() use.
enum class CollOp : uint8_t { kReduceScatter, kAllGather, kAllReduce };
enum class CollExec : uint8_t { kCu, kDmaNmc };

// One collective alone on the whole machine, as a workload asks for it.
struct CollectiveJob {
  CollOp op = CollOp::kAllReduce;
  CollExec exec = CollExec::kCu;
  uint64_t bytes = 0;       // S: the whole per-GPU buffer (nccl-tests size)
  uint32_t elem_bytes = 2;  // element size of the data type
  uint64_t seed = 1;
  bool fold = true;  // simulate GPU 0 alone when the run is rotation-symmetric
};
// Result with total_us = the collective's time, its traffic and events. Contract: ConfigError if
// `bytes` is not a whole number of elements per rank (the collective library's rule).
SublayerResult run_collective(const ConfigDoc& system_doc, const CollectiveJob& job);
// The composers of the mode rows (ModeSpec::compose). They leave the result's mode to the caller.
// Sequential composed of isolated pieces: GEMM + RS + AG (exact when the GPUs are symmetric: each
// phase starts when the previous one has ended on every GPU).
SublayerResult compose_sequential(const SublayerResult& gemm, const SublayerResult& rs,
                                  const SublayerResult& ag);
// Adds an all-gather piece to a fused-mode result run with include_ag = false.
void append_ag(SublayerResult& r, const SublayerResult& ag);
// The ideal-overlap composition (t3-paper.md §4.4 [inferred]): max(GEMM, RS) + AG, traffic summed.
SublayerResult compose_ideal(const SublayerResult& gemm, const SublayerResult& rs,
                             const SublayerResult& ag);

nlohmann::ordered_json to_json(const SublayerResult& r);

}  // namespace t3sim::system
