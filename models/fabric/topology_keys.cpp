#include "models/fabric/topology_keys.h"

#include <array>
#include <string>

#include "sim/errors.h"

namespace t3sim::fabric {
namespace {

struct SharedKey {
  ConfigKey flag;
  void (*declare)(Params&);  // declares exactly one optional key
};

constexpr auto kSharedKeys = std::to_array<SharedKey>({
    {kKeyGpus,
     [](Params& p) {
       p.optional("gpus", ParamKind::kInt, 0,
                  "number of GPUs (a multi-node topology takes nodes x gpus_per_node; there "
                  "'gpus' is a cross-check)")
           .range(0, kMaxGpus);
     }},
    {kKeyNodes,
     [](Params& p) {
       p.optional("nodes", ParamKind::kInt, 0, "number of nodes").range(0, kMaxGpus);
     }},
    {kKeyGpusPerNode,
     [](Params& p) {
       p.optional("gpus_per_node", ParamKind::kInt, 0, "GPUs (and NICs, rails) per node")
           .range(0, kMaxGpus);
     }},
    {kKeySwitch,
     [](Params& p) {
       p.optional("switch", ParamKind::kObject, nullptr,
                  "NVSwitch plane (one per node on a multi-node topology) or the host's PCIe "
                  "switch (nvlink_pairs: port_bandwidth is each GPU's PCIe rate); see switch "
                  "params");
     }},
    {kKeyNic,
     [](Params& p) {
       p.optional("nic", ParamKind::kObject, nullptr, "per-GPU network adapter (see nic params)");
     }},
    {kKeyIbSwitch,
     [](Params& p) {
       p.optional("ib_switch", ParamKind::kObject, nullptr,
                  "InfiniBand switch: rail switch (two_level), leaf and spine (leaf_spine), "
                  "router (dragonfly); see ib_switch params");
     }},
    {kKeyPlacement,
     [](Params& p) {
       p.optional("placement", ParamKind::kString, "blocked",
                  "which group of the network node n sits in; blocked: n / nodes_per_leaf "
                  "(consecutive nodes share a leaf); striped: n mod groups (consecutive nodes sit "
                  "in consecutive groups, as a scheduler spreading a job over leaves). Up/down "
                  "routing spreads by the physical position either way")
           .one_of({"blocked", "striped"});
     }},
});

ParamSpec shared_spec(const SharedKey& k) {
  Params one;
  k.declare(one);
  return one.specs().front();
}

// Appends a copy of `s` (kind, default, range, choices) under `description`.
void copy_spec(Params& p, const ParamSpec& s, bool required, const std::string& description) {
  if (p.find(s.name) != nullptr) {
    throw ModelError("fabric", "key '" + s.name + "' is declared twice in the topology table");
  }
  if (required || !s.default_value) {
    if (required) {
      p.required(s.name, s.kind, description);
    } else {
      p.optional(s.name, s.kind, nullptr, description);
    }
  } else {
    p.optional(s.name, s.kind, *s.default_value, description);
  }
  if (s.min && s.max) {
    p.range(*s.min, *s.max);
  } else if (s.min) {
    p.at_least(*s.min);
  }
  if (!s.choices.empty()) p.one_of(s.choices);
}

std::string names_of(uint32_t flag, bool needed) {
  std::string out;
  for (const TopologyKind& k : topology_kinds()) {
    const uint32_t mask = needed ? k.needs : k.allows & ~k.needs;
    if ((mask & flag) != 0) out += (out.empty() ? "" : ", ") + std::string(k.name);
  }
  return out;
}

}  // namespace

void add_topology_keys(Params& p, const TopologyKind& kind, uint32_t derived) {
  for (const SharedKey& k : kSharedKeys) {
    if (((kind.needs | kind.allows) & k.flag) == 0) continue;
    const ParamSpec s = shared_spec(k);
    copy_spec(p, s, (kind.needs & k.flag & ~derived) != 0, s.description);
  }
  const Params own = own_params(kind);
  for (const ParamSpec& s : own.specs()) {
    copy_spec(p, s, !s.default_value.has_value(), s.description);
  }
}

void add_every_topology_key(Params& p) {
  for (const SharedKey& k : kSharedKeys) {
    const ParamSpec s = shared_spec(k);
    const std::string needed = names_of(k.flag, true);
    const std::string optional = names_of(k.flag, false);
    std::string used = needed.empty() ? "" : "needed by " + needed;
    if (!optional.empty()) used += (used.empty() ? "" : "; ") + ("optional for " + optional);
    copy_spec(p, s, false, s.description + " (" + used + ")");
  }
  for (const TopologyKind& kind : topology_kinds()) {
    const Params own = own_params(kind);
    for (const ParamSpec& s : own.specs()) {
      const std::string need = s.default_value ? "" : " (required)";
      copy_spec(p, s, false, std::string(kind.name) + need + ": " + s.description);
    }
  }
}

}  // namespace t3sim::fabric
