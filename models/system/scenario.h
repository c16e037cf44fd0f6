// Scenario: one simulation of a sublayer phase: a fresh Simulator and System, the GEMM's buffers
// on every GPU, and small completion joins. Every mode runner builds one or more of these.
// A folded scenario (models/common/mirror.h) simulates GPU 0 alone on the whole fabric, or node
// 0's GPUs on a multi-node fabric: runners launch work on GPUs [0, active()) and traffic totals
// are scaled by gpus() / active(), so results read as for the whole machine. Folding needs the
// fabric's sublayer_rotation (fabric/builders.h): one over every GPU (ring, fully connected, one
// switch) or whole nodes (two-level; leaf-spine where each traffic source's routes pass
// Fabric::fold_problem); common::FoldError otherwise.
// Contract: finish() runs the end-of-run invariants of every component (ModelError on violation).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/common/memory.h"
#include "models/common/mirror.h"
#include "models/gpu/gemm_kernel.h"
#include "models/system/mode.h"
#include "models/system/system.h"
#include "sim/simulator.h"

namespace t3sim::system {

struct GemmBuffers {
  uint64_t a = 0;
  uint64_t b = 0;
  uint64_t c = 0;
};

// Counts arrivals and runs `then` at the last one (GEMM hooks or collective completions).
class Join : public gpu::GemmHooks {
 public:
  Join(int expected, std::function<void()> then) : left_(expected), then_(std::move(then)) {}
  void arrive() {
    if (--left_ == 0 && then_) then_();
  }
  void kernel_done() override { arrive(); }

 private:
  int left_;
  std::function<void()> then_;
};

// WG time of GEMM kernels: computing, waiting for operands (memory stall), pipeline fill/drain.
struct GemmWgTime {
  uint64_t compute_ps = 0;
  uint64_t memory_stall_ps = 0;
  uint64_t pipeline_ps = 0;
};

class Scenario {
 public:
  Scenario(const ConfigDoc& doc, uint64_t seed, Timeline* tracer, bool fold = false);
  Simulator& sim() { return sim_; }
  System& system() { return *system_; }
  gpu::Machine& machine() { return system_->machine(); }
  int gpus() const { return system_->num_gpus(); }
  bool folded() const { return fold_; }
  // GPUs that run work: [0, active()).
  int active() const { return fold_ ? rot_.reps() : gpus(); }
  // The rotations a folded run relies on (the fabric's sublayer_rotation).
  const common::GpuRotation& rotation() const { return rot_; }
  uint64_t scale() const { return fold_ ? static_cast<uint64_t>(gpus() / rot_.reps()) : 1; }
  const gpu::GpuSpec& spec() const { return system_->gpu_spec(); }

  // Allocates A [M x K], B [K x N] and C [M x N] on every GPU. ConfigError (naming the system's
  // "gpu") for a shape the GPU model cannot represent (gemm_limits.h).
  void allocate(const gpu::GemmShape& shape, uint32_t elem_bytes);
  const GemmBuffers& buffers(int g) const { return buffers_[static_cast<size_t>(g)]; }
  std::vector<uint64_t> c_addrs() const;
  // A baseline GEMM on GPU g (local cached WRITEs), launched on `cus` CUs, reporting to `hooks`.
  gpu::GemmKernel& launch_local_gemm(int g, const gpu::GemmShape& shape, uint32_t elem_bytes,
                                     uint32_t cus, gpu::GemmHooks* hooks, uint64_t c_offset = 0);
  gpu::GemmKernel& launch_gemm(int g, gpu::GemmPlan plan, uint32_t cus, gpu::GemmHooks* hooks);
  // Stream per GPU for GEMM loads / stores (shared by the kernels of this scenario).
  gpu::MemStream& reads(int g) { return *reads_[static_cast<size_t>(g)]; }
  gpu::MemStream& stores(int g) { return *stores_[static_cast<size_t>(g)]; }

  void run();  // run to quiescence, then end-of-run invariants
  // Whole-machine totals (a folded run's GPU 0 counts x gpus()).
  std::array<uint64_t, common::kNumTrafficClasses> dram_bytes() const;
  uint64_t dram_total() const;
  uint64_t link_bytes();
  Tick last_gemm_done() const;
  // WG time of the simulated GEMM kernels by cause (gemm_kernel.h), summed.
  GemmWgTime gemm_wg_time() const;
  int next_serial() { return serial_++; }  // unique names for per-scenario components

 private:
  Simulator sim_;
  std::string file_;  // the system document, for errors
  std::unique_ptr<System> system_;
  bool fold_ = false;
  common::GpuRotation rot_;
  std::vector<GemmBuffers> buffers_;
  std::vector<std::unique_ptr<gpu::MemStream>> reads_;
  std::vector<std::unique_ptr<gpu::MemStream>> stores_;
  std::vector<std::unique_ptr<gpu::GemmKernel>> kernels_;
  int serial_ = 0;
};

// Timeline process names: "GPU g" for each GPU, and the fabric's own process.
void name_processes(Timeline& tl, int gpus);

// Whether a run on this system can fold, asked before building it: the system's fabric must be
// rotation-symmetric (its topology says so) and the work must run on CUs (a DMA-engine collective
// never folds). Schedules and T3 plans are still proven symmetric while the run is built; a
// common::FoldError from there sends the caller to a full run.
bool can_fold(const ConfigDoc& system_doc, const ModeSpec& mode);
bool can_fold(const ConfigDoc& system_doc, Piece piece);

struct SublayerResult;
// Adds a scenario's DRAM traffic, link bytes and events to a result.
void absorb_into(SublayerResult& r, Scenario& sc);
// Keeps GPU 0's HBM traffic timeline and/or the stats tree in a result, as `opts` asks.
struct RunOptions;
void keep_outputs(SublayerResult& r, Scenario& sc, const RunOptions& opts);

}  // namespace t3sim::system
