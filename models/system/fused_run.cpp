// The fused GEMM-RS modes (t3, t3-mca, t3-direct, t3-nvls; t3-paper.md §3): every GPU's GEMM stores
// its output as UPDATEs routed by the T3 plan (models/t3), a tracker per GPU counts them and fires
// the pre-programmed DMA UPDATEs; the mode's row picks ring or direct (the system's t3 settings the
// rings, or direct on a full mesh: fused_rings.h), the GEMM library its tile (fused_tile.h) and the
// HBM policy of the fused phase. The all-gather (not fused) follows when spec.include_ag.
#include "models/system/mode_runners.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/common/mirror.h"
#include "models/system/collective_launch.h"
#include "models/system/fused_rings.h"
#include "models/system/scenario.h"
#include "models/t3/fused_plan.h"
#include "models/t3/fused_tile.h"
#include "models/tracker/tracker.h"
#include "sim/errors.h"

namespace t3sim::system {
namespace {

// Wires one GPU's GEMM to its tracker and the run's completion logic.
class FusedControl : public tracker::TrackerListener {
 public:
  FusedControl(int gpus, uint32_t owned_tiles, std::function<void()> rs_done)
      : kernels_(static_cast<size_t>(gpus), nullptr),
        expected_(static_cast<uint32_t>(gpus)),
        owned_left_(owned_tiles),
        rs_done_(std::move(rs_done)) {}
  void set_kernel(int g, gpu::GemmKernel* k) { kernels_[static_cast<size_t>(g)] = k; }
  void entry_freed(int gpu) override {
    if (auto* k = kernels_[static_cast<size_t>(gpu)]) k->admit_retry();
  }
  void tile_complete(int gpu, uint32_t tile, uint32_t contributions) override {
    if (contributions != expected_) {
      throw ModelError("sys.gpu" + std::to_string(gpu) + ".tracker",
                       "tile " + std::to_string(tile) + " ended with " +
                           std::to_string(contributions) + " contributions, expected " +
                           std::to_string(expected_));
    }
    if (--owned_left_ == 0) rs_done_();
  }

 private:
  std::vector<gpu::GemmKernel*> kernels_;
  uint32_t expected_;
  uint32_t owned_left_;
  std::function<void()> rs_done_;
};

class FusedHooks : public gpu::GemmHooks {
 public:
  FusedHooks(tracker::Tracker& t, Join& j) : tracker_(t), join_(j) {}
  bool admit(uint32_t tile) override { return tracker_.admit_local(tile); }
  void kernel_done() override { join_.arrive(); }

 private:
  tracker::Tracker& tracker_;
  Join& join_;
};

// The fused traffic (remote stores and tracker DMAs of the simulated GPUs) must look the same
// from every GPU; on a leaf-spine fabric that is checked route by route (Fabric::fold_problem).
void check_routes(Scenario& sc, const std::vector<t3::GpuFusedPlan>& plans) {
  std::vector<std::pair<int, int>> pairs;
  for (const auto& plan : plans) {
    for (const auto& st : plan.gemm.stores) pairs.emplace_back(plan.gpu, st.dst_gpu);
    for (const auto& [tile, prog] : plan.programs) {
      if (prog.has_dma) pairs.emplace_back(plan.gpu, prog.dma.dst_gpu);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  const std::string why = sc.system().fabric().fold_problem(pairs, sc.rotation());
  if (!why.empty()) throw common::FoldError(why);
}

}  // namespace

SublayerResult run_fused(const ModeRun& run) {
  const SublayerSpec& s = run.spec;
  const ModeSpec& mode = run.mode;
  const bool nvls = mode.fused_rs == RsFusion::kNvls;
  if (nvls && run.fold) throw common::FoldError("in-switch reductions are simulated unfolded");
  SublayerResult r;
  Scenario sc(run.doc, s.seed, run.tracer, run.fold);
  sc.allocate(s.shape, s.elem_bytes);
  if (nvls && !sc.system().fabric().has_switch_reduction()) {
    throw ConfigError("", "/fabric/switch/reduce_bandwidth",
                      "t3-nvls needs an NVSwitch that reduces (fabric.switch.reduce_bandwidth, "
                      "NVLink SHARP) and the packet fabric model; use t3-direct or t3");
  }
  const int n = sc.gpus();
  t3::FusedInput in;
  in.shape = s.shape;
  in.elem_bytes = s.elem_bytes;
  in.group_m = sc.spec().group_m;
  const FusedRoute route = fused_route(sc.system(), mode.fused_rs == RsFusion::kRing);
  in.ring = route.rings.front();  // GPU 0 first: folded runs simulate its position
  in.extra_rings.assign(route.rings.begin() + 1, route.rings.end());
  in.weights = route.weights;
  const bool direct = !nvls && (mode.fused_rs == RsFusion::kDirect || route.direct);
  const uint32_t capacity = sc.system().t3().tracker_entries;
  const uint32_t slots = sc.spec().cus * sc.spec().wgs_per_cu;
  const gpu::TileShape tile = t3::fused_tile(sc.spec(), s.shape, s.elem_bytes, sc.spec().cus,
                                             static_cast<uint32_t>(n), direct ? capacity : 0);
  in.tile_m = tile.m;
  in.tile_n = tile.n;
  for (const int g : in.ring) {
    in.a_addr.push_back(sc.buffers(g).a);
    in.b_addr.push_back(sc.buffers(g).b);
    in.out_addr.push_back(sc.buffers(g).c);
  }
  const int active = sc.active();
  const t3::FusedKind kind = nvls     ? t3::FusedKind::kNvls
                             : direct ? t3::FusedKind::kDirect
                                      : t3::FusedKind::kRing;
  auto plans = t3::build_fused_rs(in, kind, static_cast<uint32_t>(active));
  std::unique_ptr<common::MirrorMap> mirror;
  if (sc.folded()) {
    mirror = t3::make_mirror(in);
    check_routes(sc, plans);
    sc.machine().remote->fold(mirror.get(), sc.rotation());
  }
  uint32_t owned = 0;
  for (const auto& plan : plans) owned += static_cast<uint32_t>(plan.owned_tiles.size());
  Tick rs_end{};
  std::unique_ptr<CollectiveRun> ag;
  const uint64_t bytes = output_bytes(s);
  FusedControl control(n, owned, [&] {
    rs_end = sc.sim().now();
    if (!mode.policy.empty()) {  // the row's policy arbitrates the fused GEMM-RS only
      for (int g = 0; g < sc.active(); ++g) {
        sc.system().hbm(g).set_policy(sc.system().hbm(g).config().policy);
      }
    }
    if (s.include_ag) {
      ag = launch_collective(sc, CollOp::kAllGather, CollExec::kCu, bytes, s.elem_bytes,
                             sc.c_addrs(), 0, nullptr);
    }
  });
  Join gemm_join(active, nullptr);
  std::vector<std::unique_ptr<tracker::Tracker>> trackers;
  std::vector<std::unique_ptr<FusedHooks>> hooks;
  if (!mode.policy.empty()) {
    for (int g = 0; g < active; ++g) sc.system().hbm(g).set_policy(std::string(mode.policy));
  }
  for (auto& plan : plans) {  // one per ring position; the position's GPU is plan.gpu
    const int g = plan.gpu;
    trackers.push_back(std::make_unique<tracker::Tracker>(
        sc.sim(), &sc.system().machine_component(g), "tracker", g, capacity, slots,
        static_cast<uint32_t>(plan.tracker_tiles), *sc.machine().gpus[static_cast<size_t>(g)].dma,
        *sc.machine().remote, &control));
    for (const auto& [tile, prog] : plan.programs) trackers.back()->program(tile, prog);
    sc.system().hbm(g).set_update_observer(trackers.back().get());
    sc.machine().remote->set_gate(g, trackers.back().get());
    hooks.push_back(std::make_unique<FusedHooks>(*trackers.back(), gemm_join));
  }
  for (size_t p = 0; p < plans.size(); ++p) {
    const int g = plans[p].gpu;
    auto& k = sc.launch_gemm(g, std::move(plans[p].gemm), sc.spec().cus, hooks[p].get());
    control.set_kernel(g, &k);
  }
  sc.run();
  absorb_into(r, sc);
  keep_outputs(r, sc, run.opts);
  for (const auto& t : trackers) {  // whole-machine counts (a folded run's GPU 0 x N)
    r.tracker_triggers += t->triggers() * sc.scale();
    r.tracker_max_occupancy = std::max(r.tracker_max_occupancy, t->max_occupancy());
    r.tracker_stalls += t->stalls() * sc.scale();
  }
  const Tick gemm_end = sc.last_gemm_done();
  r.gemm_us = (gemm_end - Tick{}).to_us();
  r.rs_us = (rs_end - Tick{}).to_us();
  r.rs_exposed_us = rs_end > gemm_end ? (rs_end - gemm_end).to_us() : 0.0;
  r.ag_us = ag ? (ag->finished() - ag->started()).to_us() : 0.0;
  r.total_us = ((ag ? ag->finished() : rs_end) - Tick{}).to_us();
  return r;
}

}  // namespace t3sim::system
