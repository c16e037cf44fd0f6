#include "studies/probes.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "models/collectives/kinds.h"
#include "models/common/mirror.h"
#include "models/fabric/builders.h"
#include "models/fabric/fabric.h"
#include "models/system/scenario.h"
#include "models/system/system.h"
#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::studies {
namespace {

// Records the time of the last completed access.
class LastDone : public gpu::AccessDone {
 public:
  explicit LastDone(system::Scenario& sc) : sc_(sc) {}
  void access_done(uint64_t) override { last = sc_.sim().now(); }
  Tick last{};

 private:
  system::Scenario& sc_;
};

}  // namespace

namespace {

// Ends the co-runner's unbounded stream when the GEMM has stored its last tile.
class StopOnDone : public gpu::GemmHooks {
 public:
  explicit StopOnDone(gpu::CopyKernel* copy) : copy_(copy) {}
  void kernel_done() override {
    if (copy_ != nullptr) copy_->stop();
  }

 private:
  gpu::CopyKernel* copy_;
};

}  // namespace

HeldCus contention_reduction(uint32_t sms, uint64_t red_bytes) {
  HeldCus held;
  held.cus = sms;
  held.busy = sms > 0;
  gpu::CopyPattern t;
  t.lanes = std::max<uint32_t>(1, sms);
  t.chunk = 512 * 16;
  t.inputs = 2;
  t.array_bytes = std::max<uint64_t>(red_bytes, t.chunk * t.lanes);
  t.total_bytes = red_bytes;
  held.traffic = t;
  return held;
}

HeldCus background_kernel(const gpu::GpuSpec& spec, std::string_view kind, uint32_t sms,
                          uint64_t sleep_ns) {
  const bool copy = kind.rfind("copy", 0) == 0;
  if (!copy && kind != "spin" && kind != "read" && kind != "ce") {
    throw UsageError("background kernel '" + std::string(kind) +
                     "' is not spin, copy, copy-paced, copy-evict-first, "
                     "copy-evict-first-paced, read or ce");
  }
  HeldCus held;
  held.cus = kind == "ce" ? 0 : sms;
  held.busy = held.cus > 0;
  if (kind == "spin") return held;
  gpu::CopyPattern t;
  if (kind == "ce") {
    t.lanes = spec.dma.engines;
    t.chunk = spec.dma.window.count();
  } else {
    if (sms == 0) throw UsageError("a " + std::string(kind) + " kernel needs SMs (--held-cus)");
    t.lanes = sms;
    t.chunk = 512 * 8 * 16;
    t.writes = kind != "read";
    t.pause = Duration::ps(sleep_ns * 1000);
    t.evict_first = kind.rfind("copy-evict-first", 0) == 0;  // __ldcs / __stcs
  }
  t.array_bytes = uint64_t{256} << 20;  // chosen by t3sim: the probe's buffer size is not given
  t.total_bytes = 0;                    // for the whole GEMM
  held.traffic = t;
  return held;
}

namespace {

// The co-runner's memory stream and kernel on GPU 0 of `sc`.
struct CoRunner {
  std::unique_ptr<gpu::MemStream> stream;
  std::unique_ptr<gpu::CopyKernel> copy;
};

CoRunner make_corunner(system::Scenario& sc, const gpu::CopyPattern& t) {
  CoRunner c;
  const gpu::GpuNode& node = sc.machine().gpus[0];
  const auto txn = static_cast<uint32_t>(sc.spec().txn.count());
  const uint64_t window = t.lanes * t.chunk * t.inputs / txn + t.lanes;
  c.stream = std::make_unique<gpu::MemStream>(
      sc.system().memory(0), txn,
      static_cast<uint32_t>(std::min<uint64_t>(window, uint64_t{1} << 20)), 0, t.lanes);
  std::vector<uint64_t> bases;
  for (uint32_t i = 0; i < t.inputs + (t.writes ? 1u : 0u); ++i) {
    bases.push_back(node.alloc->allocate(t.array_bytes));
  }
  c.copy = std::make_unique<gpu::CopyKernel>(sc.sim(), &sc.system().machine_component(0),
                                             "corunner", *c.stream, t, std::move(bases));
  return c;
}

}  // namespace

double probe_corunner_alone(const ConfigDoc& system, const HeldCus& corunner) {
  if (!corunner.traffic || corunner.traffic->total_bytes == 0) {
    throw UsageError("a co-runner alone needs a byte count to finish");
  }
  system::Scenario sc(system, 1, nullptr);
  CoRunner c = make_corunner(sc, *corunner.traffic);
  c.copy->start();
  sc.run();
  return (c.copy->finished_at() - Tick{}).to_us();
}

GemmProbe probe_gemm(const ConfigDoc& system, const gpu::GemmShape& shape, HeldCus held) {
  const uint32_t elem = shape.precision == gpu::Precision::kFp8    ? 1
                        : shape.precision == gpu::Precision::kFp16 ? 2
                        : shape.precision == gpu::Precision::kBf16 ? 2
                                                                   : 4;
  system::Scenario sc(system, 1, nullptr);
  sc.allocate(shape, elem);
  if (held.cus >= sc.spec().cus) {
    throw UsageError("the GPU has " + std::to_string(sc.spec().cus) + " CUs: at most " +
                     std::to_string(sc.spec().cus - 1) + " can be held");
  }
  const gpu::GpuNode& node = sc.machine().gpus[0];
  const bool busy = held.busy && held.cus > 0;
  if (busy) node.cus->acquire(held.cus);
  // The co-runner, launched first: its memory stream on GPU 0.
  CoRunner corunner;
  if (held.traffic) corunner = make_corunner(sc, *held.traffic);
  gpu::CopyKernel* copy = corunner.copy.get();
  // An unbounded co-runner (no byte count) stops with the GEMM; a counted one runs to its end.
  StopOnDone hooks(held.traffic && held.traffic->total_bytes == 0 ? copy : nullptr);
  auto& kern = sc.launch_local_gemm(0, shape, elem, sc.spec().cus - held.cus, &hooks);
  bool given_back = held.cus == 0;
  const auto give_back = [&] {
    if (given_back) return;
    given_back = true;
    if (busy) node.cus->release(held.cus);
    if (!kern.finished()) kern.add_cus(held.cus);
  };
  if (copy) {
    if (held.traffic->total_bytes != 0) copy->on_done(give_back);
    copy->start();
  }
  if (held.cus > 0 && held.for_time != Duration{}) {
    sc.sim().run_until(Tick{} + held.for_time);
    give_back();
  }
  sc.run();
  GemmProbe p;
  p.time_us = (kern.done() - kern.start()).to_us();
  p.tflops = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) *
             static_cast<double>(shape.k) * static_cast<double>(shape.batch) / (p.time_us * 1e6);
  p.dram_bytes = sc.dram_total();
  p.dram_read_bytes = kern.dram_read_bytes();
  p.dram_write_bytes = sc.dram_bytes()[static_cast<size_t>(common::TrafficClass::kGemmWrite)];
  p.end_us = (kern.done() - Tick{}).to_us();
  const auto& g = sc.spec();
  const uint64_t tiles =
      ((shape.m + g.tile_m - 1) / g.tile_m) * ((shape.n + g.tile_n - 1) / g.tile_n) * shape.batch;
  const uint64_t slots = uint64_t{g.cus} * g.wgs_per_cu;
  p.waves = (tiles + slots - 1) / slots;
  const double peak_bps =
      static_cast<double>(sc.system().hbm(0).config().bandwidth.bytes_per_second());
  p.dram_utilisation = static_cast<double>(p.dram_bytes) / (p.time_us * 1e-6 * peak_bps);
  p.l2_hit_rate = kern.l2_hit_rate();
  p.compute_us = static_cast<double>(kern.compute_ps()) * 1e-6;
  p.memory_stall_us = static_cast<double>(kern.memory_stall_ps()) * 1e-6;
  p.pipeline_us = static_cast<double>(kern.pipeline_ps()) * 1e-6;
  if (node.clock != nullptr) {
    p.clock_mhz = node.clock->mean_clock_mhz();
    p.power_w = node.clock->mean_power_w();
  } else {
    p.clock_mhz = static_cast<double>(g.clock.count_hz()) * 1e-6;
  }
  if (copy) {
    const Tick end = copy->done() ? copy->finished_at() : kern.done();
    p.corunner_us = held.traffic->total_bytes != 0 ? (end - Tick{}).to_us() : 0.0;
    p.corunner_gbps = static_cast<double>(copy->bytes_moved()) / ((end - Tick{}).to_us() * 1e3);
  }
  return p;
}

hbm::LoadedLatencyCurve probe_loaded_latency(const ConfigDoc& system,
                                             const hbm::LoadedLatencySpec& spec) {
  const ConfigNode root = ConfigNode::root(system);
  return hbm::loaded_latency(hbm::HbmConfig::from(root.child("hbm")), spec);
}

std::optional<std::vector<common::MemCmd>> hbm_pattern_commands(std::string_view pattern) {
  using common::MemCmd;
  if (pattern == "read") return std::vector<MemCmd>{MemCmd::kRead};
  if (pattern == "write") return std::vector<MemCmd>{MemCmd::kWrite};
  if (pattern == "copy") return std::vector<MemCmd>{MemCmd::kRead, MemCmd::kWrite};
  if (pattern == "update") return std::vector<MemCmd>{MemCmd::kUpdate};
  if (pattern == "rmw") return std::vector<MemCmd>{MemCmd::kRead, MemCmd::kRead, MemCmd::kWrite};
  return std::nullopt;
}

Duration probe_hbm_streams(const ConfigDoc& system, const std::vector<common::MemCmd>& cmds,
                           uint64_t bytes) {
  system::Scenario sc(system, 1, nullptr);
  LastDone counter(sc);
  std::vector<std::unique_ptr<gpu::MemStream>> streams;
  const auto txn = static_cast<uint32_t>(sc.spec().txn.count());
  for (const common::MemCmd cmd : cmds) {
    streams.push_back(std::make_unique<gpu::MemStream>(sc.system().hbm(0), txn, 4096, 0));
    gpu::Access a;
    a.addr = sc.machine().gpus[0].alloc->allocate(bytes);
    a.bytes = bytes;
    a.cmd = cmd;
    a.done = &counter;
    streams.back()->submit(a);
  }
  sc.run();
  return counter.last - Tick{};
}

P2pProbe probe_p2p(const ConfigDoc& system, int src, int dst, uint64_t bytes) {
  system::Scenario sc(system, 1, nullptr);
  if (src < 0 || dst < 0 || src >= sc.gpus() || dst >= sc.gpus() || src == dst) {
    throw UsageError("--src and --dst must be different GPUs in 0.." +
                     std::to_string(sc.gpus() - 1));
  }
  LastDone counter(sc);
  const auto& s_node = sc.machine().gpus[static_cast<size_t>(src)];
  const uint64_t src_base = s_node.alloc->allocate(bytes);
  const uint64_t dst_base = sc.machine().gpus[static_cast<size_t>(dst)].alloc->allocate(bytes);
  const uint64_t engines = sc.spec().dma.engines;
  const uint64_t per = (bytes + engines - 1) / engines;
  for (uint64_t off = 0; off < bytes; off += per) {
    gpu::DmaDescriptor d;
    d.src_addr = src_base + off;
    d.dst_gpu = dst;
    d.dst_addr = dst_base + off;
    d.bytes = std::min(per, bytes - off);
    d.done = &counter;
    s_node.dma->submit(d);
  }
  sc.run();
  return P2pProbe{counter.last - Tick{}, sc.machine().fabric->hops(src, dst)};
}

namespace {

// `fold`: simulate the representatives of the fabric's rotations alone: GPU 0, or with
// `whole_nodes` node 0's GPUs. `seen` receives the fabric's rotations once the system is built.
CollectiveProbe probe_once(const ConfigDoc& system, collectives::CollectiveSpec spec,
                           Timeline* timeline, bool fold, bool whole_nodes = false,
                           std::optional<common::GpuRotation>* seen = nullptr) {
  Simulator sim;
  sim.set_timeline(timeline);
  const int per_node = whole_nodes && seen != nullptr && *seen ? (*seen)->per_node : 1;
  system::System sys(sim, ConfigNode::root(system), fold ? per_node : 0);
  std::optional<common::GpuRotation> rot = sys.fabric().symmetry();
  if (seen != nullptr) *seen = rot;
  if (rot) rot->whole_nodes = whole_nodes;
  if (fold && !rot) {
    throw common::FoldError("the '" + sys.fabric().topology().kind +
                            "' fabric is not the same from every GPU");
  }
  if (fold) spec.fold_rotation = *rot;
  if (timeline != nullptr) system::name_processes(*timeline, sys.active_gpus());
  const collectives::LibraryConfig lib = sys.collectives();
  spec.fold = fold;
  collectives::Collective c(sim, &sys, "probe", sys.machine(), lib, spec);
  // Accesses for the GPUs left out land at the representatives of the rotation the collective
  // folded under (c.fold_rotation()).
  if (fold) sys.machine().remote->fold(nullptr, c.fold_rotation());
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  if (!c.done()) throw ModelError(c.path(), "collective did not complete");
  CollectiveProbe p;
  p.time_us = c.elapsed().to_us();
  p.folded = fold;
  p.simulated = fold ? c.fold_rotation().reps() : sys.machine().size();
  p.events = sim.events();
  p.how = std::string(to_string(c.algo())) + "/" + to_string(c.protocol()) + "/" +
          to_string(c.executor()) + "/" + std::to_string(c.channels()) + "ch" +
          (fold ? "/folded" : "") +
          (p.simulated > 1 && fold ? " onto " + std::to_string(p.simulated) + " GPUs" : "");
  return p;
}

}  // namespace

CollectiveProbe probe_collective(const ConfigDoc& system, const collectives::CollectiveSpec& spec,
                                 Timeline* timeline,
                                 const std::function<void(const std::string& why)>& before_full) {
  // A traced run shows every GPU; otherwise fold when the run is rotation-symmetric: onto GPU 0,
  // else (a flat ring across nodes) onto node 0's GPUs under whole-node rotations.
  if (timeline == nullptr && spec.fold) {
    std::optional<common::GpuRotation> rot;
    try {
      return probe_once(system, spec, nullptr, true, false, &rot);
    } catch (const common::FoldError& e) {
      std::string why = e.what();
      if (rot && rot->nodes > 1) {
        try {
          return probe_once(system, spec, nullptr, true, true, &rot);
        } catch (const common::FoldError& w) {
          why = w.what();
        }
      }
      if (before_full) before_full(why);
      CollectiveProbe p = probe_once(system, spec, timeline, false);
      p.how += " (" + why + ")";
      return p;
    }
  }
  return probe_once(system, spec, timeline, false);
}

std::string fold_options(const ConfigDoc& system, bool hierarchical) {
  const fabric::FabricConfig f = system::system_fabric(system);
  // The topology table says which fabrics fold by node x local rotation and which place nodes.
  const fabric::TopologyKind* k = fabric::find_topology(f.topology);
  if (k == nullptr || (k->symmetry != fabric::Symmetry::kNodesByRails &&
                       k->symmetry != fabric::Symmetry::kNodesByRailsRouted)) {
    return "";
  }
  std::string o = hierarchical ? "" : "--algo hierarchical";
  if ((k->allows & fabric::kKeyPlacement) != 0 && !f.striped)
    o += (o.empty() ? "" : " ") + std::string("--set fabric.placement=striped");
  return o;
}

double busbw_factor(collectives::Kind kind, int ranks) {
  return collectives::busbw_factor(kind, ranks);
}

}  // namespace t3sim::studies
