// Entry points of the fabric library: build a Fabric from a config object and register the
// "fabric" component type (parameters, description, example config) with the Registry. Config:
//   {"topology": "ring", "gpus": 8, "link": {"bandwidth": "75 GB/s", "latency": "500 ns",
//    "packet_size": "64 KiB", "credits": 0}}; switch adds "switch": {"latency", "port_bandwidth",
//   "ports"}; two_level uses "nodes", "gpus_per_node", "switch", "nic" and "ib_switch". Which keys
//   each topology takes is its row of the table (builders.h); `t3sim describe fabric` lists them.
// Contract: every config problem (unknown topology with a did-you-mean, unknown or unused key, bare
// number, inconsistent sizes) is a ConfigError naming the file and JSON pointer.
#pragma once

#include <memory>
#include <string>

#include "models/fabric/fabric.h"
#include "sim/config.h"
#include "sim/registry.h"
#include "sim/simulator.h"

namespace t3sim::fabric {

// `system_gpus`: the machine's GPU count, see parse_fabric_config(); `wired`: see Fabric.
std::unique_ptr<Fabric> make_fabric(Simulator& sim, Component* parent, const ConfigNode& node,
                                    std::string name = "fabric", int system_gpus = 0,
                                    bool wired = true);

void register_fabric_models(Registry& registry);

}  // namespace t3sim::fabric
