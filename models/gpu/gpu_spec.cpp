#include "models/gpu/gpu_spec.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace t3sim::gpu {
namespace {

// Parses "MxN" (e.g. "128x256") with both sides in 16..1024.
TileShape parse_tile(const ConfigNode& node) {
  if (!node.json().is_string()) node.fail("a tile must be a string \"MxN\", e.g. \"128x256\"");
  const std::string s = node.json().get<std::string>();
  const size_t x = s.find('x');
  TileShape t{0, 0};
  const char* end = s.data() + s.size();
  if (x != std::string::npos) {
    const auto a = std::from_chars(s.data(), s.data() + x, t.m);
    const auto b = std::from_chars(s.data() + x + 1, end, t.n);
    if (a.ptr != s.data() + x || a.ec != std::errc() || b.ptr != end || b.ec != std::errc())
      t.m = 0;
  }
  if (t.m < 16 || t.m > 1024 || t.n < 16 || t.n > 1024) {
    node.fail("tile '" + s + "' must be \"MxN\" with M and N in 16..1024");
  }
  return t;
}

}  // namespace

uint64_t k_phases_for(const GpuSpec& spec, uint64_t k) {
  if (spec.pipeline == Pipeline::kPhases) return spec.k_phases;
  const uint64_t group = spec.k_group != 0 ? spec.k_group : std::max<uint32_t>(1, spec.stages - 1);
  const uint64_t per_phase = group * spec.bk;
  return std::max<uint64_t>(1, k / per_phase + (k % per_phase != 0 ? 1 : 0));
}

uint32_t lookahead_phases(const GpuSpec& spec) {
  if (spec.pipeline == Pipeline::kPhases) return spec.prefetch_phases;
  const uint32_t group = spec.k_group != 0 ? spec.k_group : std::max<uint32_t>(1, spec.stages - 1);
  return std::max<uint32_t>(1, (spec.stages - 1) / group);
}

uint32_t matrix_rate(const GpuSpec& spec, Precision precision) {
  switch (precision) {
    case Precision::kTf32:
      return spec.flops_per_cu_cycle_tf32;
    case Precision::kFp32:
      return spec.flops_per_cu_cycle_fp32;
    case Precision::kFp8:
      return spec.flops_per_cu_cycle_fp8;
    default:
      return spec.flops_per_cu_cycle;
  }
}

std::string_view to_string(Precision precision) {
  switch (precision) {
    case Precision::kTf32:
      return "tf32";
    case Precision::kFp32:
      return "fp32";
    case Precision::kFp8:
      return "fp8";
    case Precision::kBf16:
      return "bf16";
    default:
      return "fp16";
  }
}

Params gpu_params() {
  Params p;
  p.required("cus", ParamKind::kInt, "compute units (SMs) per GPU").range(1, 4096);
  p.required("clock", ParamKind::kFrequency, "CU clock used for matrix throughput");
  p.required("flops_per_cu_cycle", ParamKind::kInt, "dense FP16/BF16 matrix FLOP per CU per cycle")
      .range(1, 1 << 20);
  p.optional("flops_per_cu_cycle_tf32", ParamKind::kInt, 0,
             "dense TF32 matrix FLOP per CU per cycle (FP32 data on tensor cores; 0: none)")
      .range(0, 1 << 20);
  p.optional("flops_per_cu_cycle_fp32", ParamKind::kInt, 0,
             "FP32 FLOP per CU per cycle without tensor cores (SIMT FMA; 0: not given)")
      .range(0, 1 << 20);
  p.optional("flops_per_cu_cycle_fp8", ParamKind::kInt, 0,
             "dense FP8/INT8 matrix FLOP per CU per cycle (0: no FP8 matrix units)")
      .range(0, 1 << 20);
  p.required("efficiency", ParamKind::kReal, "fraction of matrix peak reached by a GEMM WG")
      .range(0.01, 1.0);
  p.required("l2", ParamKind::kBytes, "L2 capacity").at_least(1);
  p.optional("tile_m", ParamKind::kInt, 128, "GEMM macro-tile rows per WG").range(16, 1024);
  p.optional("tile_n", ParamKind::kInt, 128, "GEMM macro-tile columns per WG").range(16, 1024);
  p.optional("k_phases", ParamKind::kInt, 8,
             "streamed K phases per WG of the legacy \"phases\" pipeline (unused by \"stages\")")
      .range(1, 1024);
  p.optional("prefetch_phases", ParamKind::kInt, 2, "K phases of input requested ahead")
      .range(1, 64);
  p.optional("pipeline", ParamKind::kString, "phases",
             "GEMM K streaming: stages (shared-memory pipeline) or phases (legacy deep lookahead)")
      .one_of({"stages", "phases"});
  p.optional("stages", ParamKind::kInt, 3, "shared-memory stages per GEMM WG (pipeline stages)")
      .range(2, 16);
  p.optional("bk", ParamKind::kInt, 64, "K-step of one pipeline stage (pipeline stages)")
      .range(8, 1024);
  p.optional("k_group", ParamKind::kInt, 0,
             "K-steps per simulated phase (0: stages - 1; fidelity knob, pipeline stages)")
      .range(0, 64);
  p.optional("cu_inflight", ParamKind::kBytes, "0 B",
             "GEMM input bytes one CU may have outstanding (0: unlimited)");
  p.optional("l2_partition", ParamKind::kBool, false,
             "memory-partition front end (L2 slices with hit bandwidth, MSHRs, miss queue)");
  p.optional("l2_hit_bandwidth", ParamKind::kBandwidth, "0 B/s",
             "L2 slice bandwidth of all slices together (0: l2_bandwidth)");
  p.optional("l2_hit_latency", ParamKind::kDuration, "0 ns", "L2 hit latency").range(0, 1e7);
  p.optional("l2_miss_queue", ParamKind::kBytes, "64 KiB", "L2 -> DRAM queue per slice")
      .at_least(64);
  p.optional("l2_mshr", ParamKind::kBytes, "256 KiB", "read-miss bytes outstanding per slice")
      .at_least(64);
  p.optional("l2_dirty", ParamKind::kBytes, "0 B",
             "dirty bytes one L2 slice buffers before a store waits for a write-back (0: stores "
             "write through to DRAM)");
  p.optional("l2_comm_policy", ParamKind::kString, "allocate",
             "how communication and co-running kernels' accesses allocate in the L2 (they take "
             "capacity from the GEMM's data): allocate, evict_first or no_allocate")
      .one_of({"allocate", "evict_first", "no_allocate"});
  p.optional("wgs_per_cu", ParamKind::kInt, 1, "concurrent GEMM WGs per CU").range(1, 16);
  p.optional("group_m", ParamKind::kInt, 8, "tile rows per dispatch group (L2 swizzle)")
      .range(1, 4096);
  p.optional("tile_select", ParamKind::kString, "fixed",
             "baseline GEMM tiling: fixed (tile_m x tile_n) or heuristic (tiles, split-K)")
      .one_of({"fixed", "heuristic"});
  p.optional("tiles", ParamKind::kArray, nlohmann::json::array(),
             "heuristic candidate macro-tiles \"MxN\", largest first (default: tile_m x tile_n)");
  p.optional("max_split_k", ParamKind::kInt, 1, "largest split-K the heuristic may choose")
      .range(1, 64);
  p.optional("gemm_launch", ParamKind::kString, "per_tile",
             "GEMM grid: per_tile (one CTA per tile, handed to free WG slots in order) or "
             "persistent (min(tiles, cus x wgs_per_cu) CTAs, each holding its slot for its tile "
             "list; CTAs that find no free slot wait for one)")
      .one_of({"per_tile", "persistent"});
  p.optional("persistent_schedule", ParamKind::kString, "static",
             "tile schedule of a persistent GEMM: static (CTA j takes tiles j, j+G, ...) or "
             "dynamic (each CTA takes the next tile from a shared counter)")
      .one_of({"static", "dynamic"});
  p.optional("persistent_static_rounds", ParamKind::kInt, 0,
             "dynamic schedule only: CTA j's first R tiles are j, j+G, ... by CTA index, the "
             "rest come from the shared counter (0: all from the counter)")
      .range(0, 64);
  p.optional("wg_overhead", ParamKind::kDuration, "0 ns",
             "fixed time per GEMM WG beyond its K loop (prologue + epilogue)")
      .range(0, 1e9);
  p.optional(
      "l2_bandwidth", ParamKind::kBandwidth, "0 B/s",
      "L2 -> CU bandwidth of all CUs together, bounding each WG's input rate (0: unlimited)");
  p.required("launch_overhead", ParamKind::kDuration, "kernel launch overhead");
  p.optional("txn", ParamKind::kBytes, "16 KiB", "memory transaction size (fidelity knob)")
      .range(64, 1 << 24);
  p.optional("read_window", ParamKind::kInt, 256, "GEMM load requests in flight per GPU")
      .range(1, 1 << 20);
  p.optional("store_window", ParamKind::kInt, 256, "GEMM store requests in flight per GPU")
      .range(1, 1 << 20);
  p.required("cu_window", ParamKind::kBytes, "bytes in flight per collective CU").at_least(64);
  p.required("dma", ParamKind::kObject, "DMA engines (engines, bandwidth, setup, chunk, window)");
  p.optional("unaligned_kernels", ParamKind::kObject, nlohmann::json::object(),
             "matrix-rate share of the kernels the library runs when operand rows are not 16-byte "
             "aligned, by alignment in bytes: {\"8\": s, \"4\": s, \"2\": s} (gemm_alignment.h)");
  p.optional("power", ParamKind::kObject, nlohmann::json::object(),
             "board power and its cap; the SM clock then follows a power controller (power.h); "
             "absent: the clock stays at gpu.clock");
  return p;
}

GpuSpec bind_gpu(const ConfigNode& node) {
  const BoundParams b = bind(gpu_params(), node);
  GpuSpec s;
  s.cus = static_cast<uint32_t>(b.integer("cus"));
  s.clock = b.frequency("clock");
  s.flops_per_cu_cycle = static_cast<uint32_t>(b.integer("flops_per_cu_cycle"));
  s.flops_per_cu_cycle_tf32 = static_cast<uint32_t>(b.integer("flops_per_cu_cycle_tf32"));
  s.flops_per_cu_cycle_fp32 = static_cast<uint32_t>(b.integer("flops_per_cu_cycle_fp32"));
  s.flops_per_cu_cycle_fp8 = static_cast<uint32_t>(b.integer("flops_per_cu_cycle_fp8"));
  s.efficiency = b.real("efficiency");
  s.l2 = b.bytes("l2");
  s.tile_m = static_cast<uint32_t>(b.integer("tile_m"));
  s.tile_n = static_cast<uint32_t>(b.integer("tile_n"));
  s.k_phases = static_cast<uint32_t>(b.integer("k_phases"));
  s.prefetch_phases = static_cast<uint32_t>(b.integer("prefetch_phases"));
  s.pipeline = b.str("pipeline") == "stages" ? Pipeline::kStages : Pipeline::kPhases;
  s.stages = static_cast<uint32_t>(b.integer("stages"));
  s.bk = static_cast<uint32_t>(b.integer("bk"));
  s.k_group = static_cast<uint32_t>(b.integer("k_group"));
  s.cu_inflight = b.bytes("cu_inflight");
  s.partition.enabled = b.boolean("l2_partition");
  s.partition.hit_bandwidth = b.bandwidth("l2_hit_bandwidth");
  s.partition.hit_latency = b.duration("l2_hit_latency");
  s.partition.miss_queue = b.bytes("l2_miss_queue");
  s.partition.mshr = b.bytes("l2_mshr");
  s.partition.dirty = b.bytes("l2_dirty");
  const std::string_view comm = b.str("l2_comm_policy");
  s.partition.comm_policy = comm == "evict_first"   ? common::L2Policy::kEvictFirst
                            : comm == "no_allocate" ? common::L2Policy::kNoAllocate
                                                    : common::L2Policy::kAllocate;
  s.wgs_per_cu = static_cast<uint32_t>(b.integer("wgs_per_cu"));
  s.group_m = static_cast<uint32_t>(b.integer("group_m"));
  s.tile_select = b.str("tile_select") == "heuristic" ? TileSelect::kHeuristic : TileSelect::kFixed;
  if (b.present("tiles")) {
    const ConfigNode tiles = b.node("tiles");
    for (size_t i = 0; i < tiles.size(); ++i) s.tiles.push_back(parse_tile(tiles.at(i)));
  }
  s.max_split_k = static_cast<uint32_t>(b.integer("max_split_k"));
  s.gemm_launch =
      b.str("gemm_launch") == "persistent" ? GemmLaunch::kPersistent : GemmLaunch::kPerTile;
  s.persistent_schedule = b.str("persistent_schedule") == "dynamic" ? PersistentSchedule::kDynamic
                                                                    : PersistentSchedule::kStatic;
  s.persistent_static_rounds = static_cast<uint32_t>(b.integer("persistent_static_rounds"));
  s.wg_overhead = b.duration("wg_overhead");
  s.l2_bandwidth = b.bandwidth("l2_bandwidth");
  s.launch_overhead = b.duration("launch_overhead");
  s.txn = b.bytes("txn");
  s.read_window = static_cast<uint32_t>(b.integer("read_window"));
  s.store_window = static_cast<uint32_t>(b.integer("store_window"));
  s.cu_window = b.bytes("cu_window");
  s.dma = bind_dma(b.node("dma"));
  if (b.present("power")) s.power = bind_power(b.node("power"));
  if (b.present("unaligned_kernels")) {
    s.unaligned_kernels = bind_unaligned_kernels(b.node("unaligned_kernels"));
  }
  return s;
}

}  // namespace t3sim::gpu
