#include "models/fabric/factory.h"

#include "models/fabric/builders.h"
#include "models/fabric/specs.h"

namespace t3sim::fabric {

std::unique_ptr<Fabric> make_fabric(Simulator& sim, Component* parent, const ConfigNode& node,
                                    std::string name, int system_gpus, bool wired) {
  FabricConfig cfg = parse_fabric_config(node, system_gpus);
  Topology topo = build_topology(cfg);
  return std::make_unique<Fabric>(sim, parent, std::move(name), std::move(topo),
                                  std::move(cfg.resolved), wired);
}

void register_fabric_models(Registry& registry) {
  ComponentType t;
  t.type = "fabric";
  t.description =
      "GPU interconnect: packetised store-and-forward links (bandwidth, latency, credits), "
      "NVSwitch planes, NICs and IB switches; static shortest-path routing; topologies:";
  for (const TopologyKind& k : topology_kinds()) {
    t.description += " " + std::string(k.name) + ": " + std::string(k.help) + ";";
  }
  t.description.back() = '.';
  t.params = fabric_params;
  t.example_config = {{"topology", "ring"},
                      {"gpus", 4},
                      {"link",
                       {{"bandwidth", "75 GB/s"},
                        {"latency", "500 ns"},
                        {"packet_size", "64 KiB"},
                        {"credits", 0}}}};
  t.build = [](Simulator& sim, Component* parent, const std::string& name,
               const ConfigNode& node) -> std::unique_ptr<Component> {
    return make_fabric(sim, parent, node, name);
  };
  registry.add(std::move(t));
}

}  // namespace t3sim::fabric
