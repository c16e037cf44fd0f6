// The topology table: one row per topology, in builders.cpp. A row names its topology, says in one
// line what it wires, which shared keys it needs or allows (sizes, the switch, NIC and IB switch
// objects several topologies use, declared once in topology_keys.cpp), declares its own keys as
// Params (name, kind with unit, default or required, range, choices, description), and gives its
// size check and its builder. Everything else reads the table: `topology`'s allowed values, the
// keys a config may hold, `t3sim describe fabric`'s help text, folded-run symmetry. The builders
// live one topology (or family) per file under topologies/. Contract: builders describe wires and
// never route; they run only on configs whose sizes passed check_sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/common/mirror.h"
#include "models/fabric/specs.h"
#include "models/fabric/topology.h"
#include "sim/params.h"

namespace t3sim::fabric {

// Bit flags naming the shared optional keys of a fabric config (topology_keys.cpp declares them).
enum ConfigKey : uint32_t {
  kKeyGpus = 1u << 0,
  kKeyNodes = 1u << 1,
  kKeyGpusPerNode = 1u << 2,
  kKeySwitch = 1u << 3,
  kKeyNic = 1u << 4,
  kKeyIbSwitch = 1u << 5,
  kKeyPlacement = 1u << 6,
};

// kNodesByRailsRouted: node and local rotations map GPUs onto GPUs but not every link onto a link
// (leaf-spine: rotating nodes moves them across leaves); a folded run first checks that the
// routes its schedule uses look the same from every GPU (Fabric::fold_problem).
enum class Symmetry : uint8_t { kNone, kRotation, kNodesByRails, kNodesByRailsRouted };

struct SizeProblem {
  std::string key;  // top-level key to blame
  std::string message;
};

struct TopologyKind {
  std::string_view name;
  std::string_view help;  // what it wires, one line (`t3sim describe fabric`)
  uint32_t needs;         // shared keys that must be present (kKeyNodes: a multi-node fabric)
  uint32_t allows;        // shared keys that may be present (needs is implied)
  // Its own keys (nullptr: none). Keys are top-level in the fabric object and read back from
  // FabricConfig::own; a key no row declares and no shared key is unknown.
  void (*declare)(Params&);
  // Every GPU sees the same fabric up to a rotation of GPU ids (kRotation: g -> g + d mod N maps
  // links onto links; kNodesByRails: rotating node and local index apart does, as on a
  // rail-optimised fabric with one switch per rail): the condition for folded runs
  // (models/common/mirror.h).
  Symmetry symmetry;
  // Its own size rules, after the shared ones (GPU and node counts) passed; nullptr: none.
  std::optional<SizeProblem> (*check)(const FabricConfig&);
  Topology (*build)(const FabricConfig&);
};

std::span<const TopologyKind> topology_kinds();
std::vector<std::string> topology_names();
// nullptr if unknown.
const TopologyKind* find_topology(std::string_view name);
// The keys `kind` declares itself (empty for a row without any).
Params own_params(const TopologyKind& kind);
// GPUs the fabric connects: nodes x gpus_per_node on a multi-node topology, else gpus.
int fabric_gpus(const FabricConfig& cfg);
// First inconsistency of sizes and port counts (gpus vs nodes x gpus_per_node, ports), if any.
std::optional<SizeProblem> check_sizes(const FabricConfig& cfg);
// The rotations a sublayer's folded run relies on (models/common/mirror.h), if the topology has
// them: one rotation of all GPU ids (Symmetry::kRotation), or whole-node rotations of a two-level
// fabric with several nodes (a flat ring across nodes maps onto itself only under those; node 0's
// GPUs are simulated), and of a leaf-spine fabric, where every source of traffic (collectives, the
// fused reduce-scatter) has its routes checked by Fabric::fold_problem before the run folds.
std::optional<common::GpuRotation> sublayer_rotation(const FabricConfig& cfg);
// Builds the graph of cfg.topology. ModelError on an unknown name or bad sizes; configs never get
// here with those: parse_fabric_config rejects them first as ConfigErrors naming the key.
Topology build_topology(const FabricConfig& cfg);

}  // namespace t3sim::fabric
