// Microbenchmark probes on one simulated system, each in a fresh Simulator: one GEMM on GPU 0
// (timed from the first dispatch to the last tile store), HBM streams on GPU 0, a DMA remote write
// between two GPUs, and one collective (nccl-tests style). The CLI's gemm/membw/p2p/nccl-tests
// commands and the validation sets both measure through these, so each is simulated one way.
// Contract: inputs are checked by the caller except where noted; results are plain numbers.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/collectives/collective.h"
#include "models/common/memory.h"
#include "models/gpu/copy_kernel.h"
#include "models/gpu/gemm_plan.h"
#include "models/hbm/loaded_latency.h"
#include "sim/config.h"
#include "sim/units.h"

namespace t3sim::studies {

struct GemmProbe {
  double time_us = 0;
  double tflops = 0;
  uint64_t dram_bytes = 0;
  uint64_t dram_read_bytes = 0;  // the GEMM's operand reads that reached DRAM (L2 misses)
  uint64_t waves = 0;            // tiles / (CUs x workgroups per CU), rounded up
  double dram_utilisation = 0;   // DRAM bytes / (kernel time x configured peak HBM bandwidth)
  double l2_hit_rate = 0;        // input bytes found in L2 or merged onto a fetch in flight
  // WG time summed over workgroup slots: computing, waiting for input data, pipeline fill/drain.
  double compute_us = 0;
  double memory_stall_us = 0;
  double pipeline_us = 0;
  // With a power model (gpu.power): the SM clock and board power averaged over the GEMM.
  double clock_mhz = 0;
  double power_w = 0;
  // The co-runner (HeldCus::traffic): bytes it moved per second of the GEMM, and when it ended
  // (its own time from launch; 0 when it ran until the GEMM ended).
  double corunner_gbps = 0;
  double corunner_us = 0;
  double end_us = 0;              // the GEMM's last store, from the co-runner's launch (time 0)
  uint64_t dram_write_bytes = 0;  // the GEMM's output stores that reached DRAM
};
// Another kernel launched before the GEMM (contention_bench's reduction, a spinning or copying
// kernel): it holds `cus` CUs (SMs), given back (add_cus) `for_time` after the launch or, with
// `traffic` of a byte count, when its last chunk completes; Duration{} and no byte count hold them
// to the end. `busy`: the held SMs draw active power (a power model counts them). `traffic`: its
// memory stream (copy_kernel.h) on GPU 0; with cus = 0 it stands for a copy engine's D2D copy.
// Without `traffic` only the CUs are held.
struct HeldCus {
  uint32_t cus = 0;
  Duration for_time;
  bool busy = false;
  std::optional<gpu::CopyPattern> traffic;
};
// contention_bench's reduction kernel (validation/cuda/contention_bench.cu): c = a + b over
// arrays of `red_bytes`, one 512-thread CTA on each of `sms` SMs, each thread loading 16 B of a
// and of b per step; it holds its SMs (busy) until its last chunk lands.
HeldCus contention_reduction(uint32_t sms, uint64_t red_bytes);
// The concurrency probe's background kernels on `sms` SMs of a GPU like `spec`, for the whole
// run: "spin" (busy SMs, no memory traffic), "copy" / "copy-paced" / "copy-evict-first" /
// "copy-evict-first-paced" (512 threads x 8 loads of 16 B in flight per CTA, then the stores;
// `sleep_ns` after each 64 KiB chunk), "read" (loads only), "ce" (the copy engines: the GPU's DMA
// engines each with its window of chunks, no SMs). UsageError for any other kind.
HeldCus background_kernel(const gpu::GpuSpec& spec, std::string_view kind, uint32_t sms,
                          uint64_t sleep_ns = 0);
// The co-runner alone on GPU 0 (no GEMM): its time from launch to its last chunk, in us.
double probe_corunner_alone(const ConfigDoc& system, const HeldCus& corunner);

// One M x N x K GEMM (2-byte elements) on the CUs of GPU 0 not held.
// UsageError when `held` takes every CU.
GemmProbe probe_gemm(const ConfigDoc& system, const gpu::GemmShape& shape, HeldCus held = {});

// The HBM commands streamed at once for a pattern: read, write, copy (read + write), update (one
// NMC read-modify-write command) and rmw (hbm_bench's a[i] += b[i]: two reads and a write).
// nullopt for any other name.
// The loaded-latency curve of GPU 0's HBM from the system config (models/hbm/loaded_latency.h).
hbm::LoadedLatencyCurve probe_loaded_latency(const ConfigDoc& system,
                                             const hbm::LoadedLatencySpec& spec);

std::optional<std::vector<common::MemCmd>> hbm_pattern_commands(std::string_view pattern);

// Streams `bytes` through GPU 0's HBM once per command, all streams at once (transaction-sized
// requests, 4096 in flight each); returns the time until the last one completes.
Duration probe_hbm_streams(const ConfigDoc& system, const std::vector<common::MemCmd>& cmds,
                           uint64_t bytes);

struct P2pProbe {
  Duration time;
  int hops = 0;
};
// `bytes` written from GPU `src` to GPU `dst`, split evenly over the source's DMA engines.
// UsageError unless src and dst are different GPUs of the system.
P2pProbe probe_p2p(const ConfigDoc& system, int src, int dst, uint64_t bytes);

struct CollectiveProbe {
  double time_us = 0;
  std::string how;      // algorithm/protocol/executor/channels chosen
  bool folded = false;  // representatives stood for the group (models/common/mirror.h)
  int simulated = 0;    // GPUs simulated: 1 or node 0's when folded, else the group's machine
  uint64_t events = 0;  // simulator events processed
};
// One collective of `spec` (its group, size and element width as given). With `spec.fold`, it
// simulates GPU 0 alone when the run is rotation-symmetric (models/common/mirror.h), else node
// 0's GPUs when it is under whole-node rotations (a flat ring across nodes), else every GPU. With
// `timeline`, every GPU is simulated and recorded into it (sim/timeline.h). `before_full`, if
// given, hears why a run asked to fold cannot, before every GPU is simulated (a long run at scale).
CollectiveProbe probe_collective(
    const ConfigDoc& system, const collectives::CollectiveSpec& spec, Timeline* timeline = nullptr,
    const std::function<void(const std::string& why)>& before_full = {});

// The CLI options under which an all-reduce on this system can fold, for a run that does not
// (README "Folded runs"; the schedule's symmetry proof still decides): on a two-level or leaf-spine
// fabric the hierarchical algorithm (unless `hierarchical` says the run has it already), and on a
// leaf-spine fabric with the default blocked placement the striped one, a job spread over the leaf
// groups. Space-separated; empty on any other fabric, or when the run has both.
std::string fold_options(const ConfigDoc& system, bool hierarchical);

// nccl-tests bus-bandwidth factor (hardware.md §5.5; collectives/kinds.h has the rule per kind).
double busbw_factor(collectives::Kind kind, int ranks);

}  // namespace t3sim::studies
