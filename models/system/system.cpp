#include "models/system/system.h"

#include <algorithm>

#include "models/hbm/hbm_config.h"
#include "models/system/system_schema.h"
#include "sim/catalog.h"
#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::system {
namespace {

// The HBM's address -> channel map as seen by the L2 slices in front of it.
class HbmChannels final : public common::ChannelMap {
 public:
  explicit HbmChannels(const hbm::Hbm& h) : hbm_(h) {}
  uint32_t channels() const override { return hbm_.channels(); }
  uint32_t channel(uint64_t addr) const override { return hbm_.channel_of(addr); }
  uint64_t interleave() const override { return hbm_.config().interleave_bytes; }

 private:
  const hbm::Hbm& hbm_;
};

}  // namespace

Params system_params() {
  Params p;
  p.required("kind", ParamKind::kString, "document kind").one_of({"system"});
  p.required("name", ParamKind::kString, "system name");
  p.required("gpus", ParamKind::kInt, "number of GPUs").range(1, fabric::kMaxGpus);
  p.required("gpu", ParamKind::kObject, "GPU compute preset (see `t3sim describe gpu`)");
  p.required("hbm", ParamKind::kObject, "HBM preset (see `t3sim describe hbm`)");
  p.required("fabric", ParamKind::kObject, "interconnect (see `t3sim describe fabric`)");
  p.required("nmc", ParamKind::kBool,
             "HBM has near-bank ALUs for UPDATE (T3 NMC); false: UPDATE = read-modify-write over "
             "the bus");
  p.required("collectives", ParamKind::kObject, "collective library settings");
  p.required("t3", ParamKind::kObject, "T3 hardware settings (tracker, MCA)");
  return p;
}

int system_gpus(const ConfigDoc& doc) {
  return static_cast<int>(bind(system_params(), ConfigNode::root(doc)).integer("gpus"));
}

fabric::FabricConfig system_fabric(const ConfigDoc& doc) {
  const BoundParams b = bind(system_params(), ConfigNode::root(doc));
  return fabric::parse_fabric_config(b.node("fabric"), static_cast<int>(b.integer("gpus")));
}

std::string system_name(const ConfigDoc& doc) {
  return bind(system_params(), ConfigNode::root(doc)).str("name");
}

System::System(Simulator& sim, const ConfigNode& cfg, int active_gpus, BuildFor purpose)
    : Component(sim, &sim.root(), "sys"), bound_(bind(system_params(), cfg)) {
  name_ = bound_.str("name");
  spec_ = gpu::bind_gpu(bound_.node("gpu"));
  const auto n = static_cast<int>(bound_.integer("gpus"));
  const bool check = purpose == BuildFor::kCheck;
  active_ = check ? 1 : active_gpus > 0 ? std::min(active_gpus, n) : n;
  fabric_ = fabric::make_fabric(sim, this, bound_.node("fabric"), "fabric", n, !check);
  if (fabric_->num_gpus() != n) {
    cfg.fail_key("fabric", "fabric connects " + std::to_string(fabric_->num_gpus()) +
                               " GPUs but \"gpus\" is " + std::to_string(n) + " (make them agree)");
  }
  collectives_ = collectives::bind_library(bound_.node("collectives"),
                                           static_cast<uint32_t>(fabric_->gpus_per_node()));
  if (collectives_.channels > spec_.cus) {
    bound_.node("collectives")
        .fail_key("channels", "collectives.channels is " + std::to_string(collectives_.channels) +
                                  " but gpu.cus is " + std::to_string(spec_.cus) +
                                  ": a CU collective runs one channel per CU on every GPU; set "
                                  "collectives.channels to at most gpu.cus or raise gpu.cus");
  }
  t3_ = t3::bind_t3(bound_.node("t3"));
  hbm::HbmConfig hbm_cfg = hbm::HbmConfig::from(bound_.node("hbm"));
  if (!bound_.boolean("nmc")) {
    // No near-bank ALUs: the memory controller performs an UPDATE as an atomic read-modify-write
    // across the data bus (paper §7.4's "system-wide atomics" substitute), i.e. its extra
    // occupancy is a second bus transfer instead of the near-bank pass.
    hbm_cfg.nmc_bandwidth = hbm_cfg.channel_bandwidth() * hbm_cfg.channels();
  }
  const Bytes interleave(hbm_cfg.interleave_bytes);
  if (interleave.count() % spec_.txn.count() != 0) {
    cfg.fail_key("gpu", "gpu.txn (" + std::to_string(spec_.txn.count()) + " B) must divide " +
                            "hbm.interleave (" + std::to_string(interleave.count()) +
                            " B): a transaction must map to one channel");
  }
  std::vector<common::MemTarget*> targets;
  gpus_.resize(static_cast<size_t>(n));
  for (int g = 0; g < n; ++g) {
    PerGpu& pg = gpus_[static_cast<size_t>(g)];
    pg.alloc = std::make_unique<gpu::AddressAllocator>();
    if (g >= active_) {
      targets.push_back(nullptr);
      continue;
    }
    pg.node = std::make_unique<Component>(sim, this, "gpu" + std::to_string(g));
    pg.hbm = std::make_unique<hbm::Hbm>(sim, pg.node.get(), "hbm", hbm_cfg);
    pg.hbm->trace_as(g);
    pg.cus = std::make_unique<gpu::CuPool>(spec_.cus);
    common::MemTarget* mem = pg.hbm.get();
    if (spec_.partition.enabled) {
      pg.channels = std::make_unique<HbmChannels>(*pg.hbm);
      pg.l2 = std::make_unique<gpu::MemPartition>(sim, pg.node.get(), "l2", spec_.partition,
                                                  spec_.l2_bandwidth, *pg.hbm, *pg.channels);
      mem = pg.l2.get();
    }
    targets.push_back(mem);
  }
  remote_ = std::make_unique<gpu::RemoteMemory>(sim, this, "remote", *fabric_, targets,
                                                static_cast<uint32_t>(spec_.txn.count()),
                                                spec_.store_window);
  machine_.fabric = fabric_.get();
  machine_.remote = remote_.get();
  machine_.has_nmc = bound_.boolean("nmc");
  for (int g = 0; g < n; ++g) {
    PerGpu& pg = gpus_[static_cast<size_t>(g)];
    if (g >= active_) {
      machine_.gpus.push_back(gpu::GpuNode{g, &spec_, nullptr, nullptr, nullptr, pg.alloc.get()});
      continue;
    }
    common::MemTarget* mem = targets[static_cast<size_t>(g)];
    pg.dma_reads = std::make_unique<gpu::MemStream>(*mem, static_cast<uint32_t>(spec_.txn.count()),
                                                    spec_.read_window, static_cast<uint16_t>(g));
    pg.dma = std::make_unique<gpu::DmaEngines>(sim, pg.node.get(), "dma", g, spec_.dma,
                                               *pg.dma_reads, *remote_);
    if (spec_.power.enabled) {
      hbm::Hbm* h = pg.hbm.get();
      gpu::CuPool* pool = pg.cus.get();
      pg.clock = std::make_unique<gpu::ClockControl>(
          sim, pg.node.get(), "power", spec_.power, spec_.clock, spec_.flops_per_cu_cycle,
          [h] {
            uint64_t total = 0;
            for (size_t c = 0; c < common::kNumTrafficClasses; ++c) {
              total += h->bytes(static_cast<common::TrafficClass>(c));
            }
            return total;
          },
          [pool] { return pool->total() - pool->available(); });
    }
    machine_.gpus.push_back(gpu::GpuNode{g, &spec_, mem, pg.dma.get(), pg.cus.get(), pg.alloc.get(),
                                         pg.clock.get(), pg.l2 ? &pg.l2->residency() : nullptr});
  }
}

System::~System() = default;

ConfigDoc load_system_config(const std::string& name_or_path,
                             const std::filesystem::path& configs_dir,
                             const std::vector<std::string>& overrides) {
  const std::filesystem::path path =
      Catalog("system", configs_dir / "systems", "--system").resolve(name_or_path);
  ConfigDoc doc = load_config(path, {configs_dir});
  for (const auto& o : overrides) apply_override(doc, o, system_declares);
  return doc;
}

}  // namespace t3sim::system

namespace t3sim::system {

void register_system_models(Registry& r) {
  r.add(ComponentType{"system", "a whole machine: GPUs, HBM, fabric, collectives library, T3",
                      system_params, nlohmann::json::object(), nullptr});
}

}  // namespace t3sim::system
