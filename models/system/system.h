// System: assembles a whole machine from a system config: N GPUs (compute spec, HBM with its
// memory controllers behind the L2 front end when gpu.l2_partition is on, DMA engines, CU pool,
// address allocator), the fabric (links, switches, NICs),
// and the remote-memory path. It is the only place that sees every model library; everything else
// works on the gpu::Machine view it exposes.
// Config: {"kind": "system", "name", "gpus", "gpu": {...}, "hbm": {...}, "fabric": {...},
// "nmc": bool, "collectives": {...}, "t3": {...}} with presets pulled in by "extends".
// Contract: construction binds every parameter strictly, once: the machine (GPU spec, HBM, fabric)
// and the typed collective-library and T3 settings. "gpus" is the one GPU count; the fabric takes
// it (a fabric "gpus" or a two_level nodes x gpus_per_node must agree).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/collectives/library.h"
#include "models/fabric/factory.h"
#include "models/gpu/machine.h"
#include "models/gpu/mem_partition.h"
#include "models/hbm/hbm.h"
#include "models/t3/settings.h"
#include "sim/component.h"
#include "sim/config.h"
#include "sim/params.h"
#include "sim/registry.h"

namespace t3sim::system {

Params system_params();
void register_system_models(Registry& r);

// kCheck binds and validates everything a run would (parameters, sizes, routes, GPU 0's memory)
// but builds memory for GPU 0 only and no fabric links: `t3sim check`, bounded at any GPU count
// (a fully connected fabric has num_gpus^2 links). Such a system cannot run.
enum class BuildFor { kRun, kCheck };

class System : public Component {
 public:
  // `active_gpus` > 0 builds memory, DMA engines and CUs for GPUs [0, active_gpus) only (a
  // folded run, scenario.h); the others keep an address allocator and their fabric ports.
  System(Simulator& sim, const ConfigNode& cfg, int active_gpus = 0,
         BuildFor purpose = BuildFor::kRun);
  ~System() override;
  gpu::Machine& machine() { return machine_; }
  int num_gpus() const { return static_cast<int>(gpus_.size()); }
  int active_gpus() const { return active_; }
  hbm::Hbm& hbm(int g) { return *gpus_[static_cast<size_t>(g)].hbm; }
  // What GPU g's requesters issue to: its L2 front end, or its HBM when the front end is off.
  common::MemTarget& memory(int g) { return *machine_.gpus[static_cast<size_t>(g)].hbm; }
  const gpu::MemPartition* l2(int g) const { return gpus_[static_cast<size_t>(g)].l2.get(); }
  const hbm::Hbm& hbm(int g) const { return *gpus_[static_cast<size_t>(g)].hbm; }
  // The "gpuN" component under which per-GPU kernels and trackers are placed.
  Component& machine_component(int g) { return *gpus_[static_cast<size_t>(g)].node; }
  fabric::Fabric& fabric() { return *fabric_; }
  const gpu::GpuSpec& gpu_spec() const { return spec_; }
  const std::string& name() const { return name_; }
  // The collective library's settings, with gpus_per_node from the fabric unless the
  // "collectives" object sets it.
  const collectives::LibraryConfig& collectives() const { return collectives_; }
  const t3::T3Settings& t3() const { return t3_; }
  const nlohmann::ordered_json& resolved() const { return bound_.resolved(); }

 private:
  struct PerGpu {
    std::unique_ptr<Component> node;  // "gpuN" grouping component
    std::unique_ptr<hbm::Hbm> hbm;
    std::unique_ptr<common::ChannelMap> channels;  // the HBM's address map, for the L2 slices
    std::unique_ptr<gpu::MemPartition> l2;         // front end (nullptr: off)
    std::unique_ptr<gpu::MemStream> dma_reads;
    std::unique_ptr<gpu::DmaEngines> dma;
    std::unique_ptr<gpu::CuPool> cus;
    std::unique_ptr<gpu::AddressAllocator> alloc;
    std::unique_ptr<gpu::ClockControl> clock;  // nullptr: the preset has no power model
  };
  BoundParams bound_;
  std::string name_;
  int active_ = 0;
  gpu::GpuSpec spec_;
  collectives::LibraryConfig collectives_;
  t3::T3Settings t3_;
  std::unique_ptr<fabric::Fabric> fabric_;
  std::vector<PerGpu> gpus_;
  std::unique_ptr<gpu::RemoteMemory> remote_;
  gpu::Machine machine_;
};

// The GPU count and name of a system document, bound as System binds them: a missing "gpus", a
// string or a count outside 1..8192 (fabric::kMaxGpus) is a ConfigError naming the file and /gpus.
int system_gpus(const ConfigDoc& doc);
std::string system_name(const ConfigDoc& doc);
// The document's fabric config as System builds it (fabric::parse_fabric_config with its "gpus").
fabric::FabricConfig system_fabric(const ConfigDoc& doc);

// Resolves a system name (configs/systems/<name>.json) or a path, loads it with "extends"
// resolved against `configs_dir`, and applies `overrides` ("path=value").
ConfigDoc load_system_config(const std::string& name_or_path,
                             const std::filesystem::path& configs_dir,
                             const std::vector<std::string>& overrides = {});

}  // namespace t3sim::system
