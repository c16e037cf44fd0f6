#include "models/system/scenario.h"

#include <optional>
#include <string>

#include "models/common/mirror.h"
#include "models/fabric/builders.h"
#include "models/fabric/specs.h"
#include "models/system/gemm_limits.h"
#include "sim/errors.h"

namespace t3sim::system {

namespace {
std::optional<common::GpuRotation> fold_rotation(const ConfigDoc& doc) {
  return fabric::sublayer_rotation(system_fabric(doc));
}
}  // namespace

Scenario::Scenario(const ConfigDoc& doc, uint64_t seed, Timeline* tracer, bool fold)
    : sim_(seed), file_(doc.file), fold_(fold) {
  sim_.set_timeline(tracer);
  if (fold_) {
    const std::optional<common::GpuRotation> rot = fold_rotation(doc);
    if (!rot) throw common::FoldError("the fabric is not the same from every GPU or node");
    rot_ = *rot;
  }
  system_ = std::make_unique<System>(sim_, ConfigNode::root(doc), fold_ ? rot_.reps() : 0);
  if (fold_) machine().remote->fold(nullptr, rot_);
  if (tracer != nullptr) name_processes(*tracer, active());
  const auto txn = static_cast<uint32_t>(spec().txn.count());
  for (int g = 0; g < active(); ++g) {
    common::MemTarget& hbm = system_->memory(g);  // through the L2 front end when it is on
    const uint32_t issuers = spec().cus * spec().wgs_per_cu;  // no head-of-line across channels
    reads_.push_back(std::make_unique<gpu::MemStream>(hbm, txn, spec().read_window,
                                                      static_cast<uint16_t>(g), issuers));
    stores_.push_back(std::make_unique<gpu::MemStream>(hbm, txn, spec().store_window,
                                                       static_cast<uint16_t>(g), issuers));
  }
}

void name_processes(Timeline& tl, int gpus) {
  for (int g = 0; g < gpus; ++g) tl.process(g, "GPU " + std::to_string(g));
  tl.process(Timeline::kFabricPid, "fabric");
}

bool can_fold(const ConfigDoc& doc, const ModeSpec& mode) {
  return mode.simulated && fold_rotation(doc).has_value();
}

bool can_fold(const ConfigDoc& doc, Piece piece) {
  return piece != Piece::kRsNmc && fold_rotation(doc).has_value();
}

void Scenario::allocate(const gpu::GemmShape& shape, uint32_t elem_bytes) {
  check_gemm_fits(spec(), shape, elem_bytes, file_, "/gpu");
  buffers_.clear();
  for (auto& node : machine().gpus) {
    GemmBuffers b;
    b.a = node.alloc->allocate(shape.batch * shape.m * shape.k * elem_bytes);
    b.b = node.alloc->allocate(shape.batch * shape.k * shape.n * elem_bytes);
    b.c = node.alloc->allocate(shape.batch * shape.m * shape.n * elem_bytes);
    buffers_.push_back(b);
  }
}

std::vector<uint64_t> Scenario::c_addrs() const {
  std::vector<uint64_t> v;
  for (const auto& b : buffers_) v.push_back(b.c);
  return v;
}

gpu::GemmKernel& Scenario::launch_gemm(int g, gpu::GemmPlan plan, uint32_t cus,
                                       gpu::GemmHooks* hooks) {
  const auto gi = static_cast<size_t>(g);
  kernels_.push_back(std::make_unique<gpu::GemmKernel>(
      sim_, &system_->machine_component(g), "gemm" + std::to_string(kernels_.size()), g, spec(),
      std::move(plan), *reads_[gi], *stores_[gi], *machine().remote, hooks));
  kernels_.back()->set_clock(machine().gpus[gi].clock);
  kernels_.back()->set_l2_residency(machine().gpus[gi].l2);
  kernels_.back()->launch(cus);
  return *kernels_.back();
}

gpu::GemmKernel& Scenario::launch_local_gemm(int g, const gpu::GemmShape& shape,
                                             uint32_t elem_bytes, uint32_t cus,
                                             gpu::GemmHooks* hooks, uint64_t c_offset) {
  const GemmBuffers& b = buffers(g);
  gpu::GemmPlan plan = gpu::local_gemm_plan(shape, elem_bytes, spec().tile_m, spec().tile_n,
                                            spec().group_m, g, b.a, b.b, b.c + c_offset);
  return launch_gemm(g, std::move(plan), cus, hooks);
}

void Scenario::run() {
  sim_.run();
  sim_.finish();
}

std::array<uint64_t, common::kNumTrafficClasses> Scenario::dram_bytes() const {
  std::array<uint64_t, common::kNumTrafficClasses> out{};
  for (int g = 0; g < active(); ++g) {
    for (size_t c = 0; c < common::kNumTrafficClasses; ++c) {
      out[c] += system_->hbm(g).bytes(static_cast<common::TrafficClass>(c));
    }
  }
  for (auto& b : out) b *= scale();
  return out;
}

uint64_t Scenario::dram_total() const {
  uint64_t t = 0;
  for (const uint64_t b : dram_bytes()) t += b;
  return t;
}

uint64_t Scenario::link_bytes() { return system_->fabric().total_link_bytes() * scale(); }

Tick Scenario::last_gemm_done() const {
  Tick t{};
  for (const auto& k : kernels_) t = max(t, k->done());
  return t;
}

GemmWgTime Scenario::gemm_wg_time() const {
  GemmWgTime w;
  for (const auto& k : kernels_) {
    w.compute_ps += k->compute_ps();
    w.memory_stall_ps += k->memory_stall_ps();
    w.pipeline_ps += k->pipeline_ps();
  }
  return w;
}

}  // namespace t3sim::system
