// The fabric's configuration: one top-level object (topology, sizes, local latency) with nested
// objects "link", "switch", "nic" and "ib_switch", each declared once here as Params and bound into
// a plain spec struct of strong unit types. Which shared keys a topology needs, and which keys it
// owns, is its row of the topology table (builders.h); its own keys' values land in
// FabricConfig::own. A key that the chosen topology does not use is an error, so a config never
// carries settings that silently do nothing. Sources of the values live in configs/, never in C++
// defaults.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "models/fabric/topology_values.h"
#include "sim/config.h"
#include "sim/params.h"
#include "sim/units.h"

namespace t3sim::fabric {

// Largest machine a fabric describes (the system's "gpus" range) and deepest receive buffer: the
// maxima of the integer sizes, so a configured count always fits the int or uint32_t it lands in.
constexpr int kMaxGpus = 8192;
// A fully connected fabric has num_gpus x (num_gpus - 1) edges: past this many GPUs its graph alone
// would outgrow `t3sim check`'s memory bound (tools/bench/bench_system_build.cpp).
constexpr int kMaxFullyConnectedGpus = 4096;
constexpr int kMaxCredits = 1 << 20;

// One direction of a point-to-point link (NVLink, xGMI, the T3 ring). Full duplex = two of these.
struct LinkSpec {
  Bandwidth bandwidth;   // per direction
  Duration latency;      // one-way, added after the last byte is serialised
  Bytes packet_size;     // fabric-wide packetisation (fidelity knob)
  uint32_t credits = 0;  // downstream buffer in packets; 0 = unlimited
};

// An NVSwitch plane seen as one crossbar with one port per GPU (aggregate of that GPU's NVLinks).
struct SwitchSpec {
  Duration latency;          // switching latency, added once per traversal
  Bandwidth port_bandwidth;  // per port and direction (ingress and egress serialisation)
  int ports = 0;             // GPU-facing ports
  // In-switch reduction (NVLink SHARP) throughput per port; zero: the switch cannot reduce.
  Bandwidth reduce_bandwidth;
};

// A network adapter: line rate times efficiency is the achievable rate on the wire.
struct NicSpec {
  Bandwidth line_rate;
  double efficiency = 1.0;
  Duration latency;  // per NIC traversal (send side and receive side each add it once)
  Bandwidth effective() const;
};

struct IbSwitchSpec {
  Duration latency;
  Bandwidth port_bandwidth;
  int ports = 0;
};

struct FabricConfig {
  std::string topology;
  bool fluid = false;  // "model": "flow"
  int gpus = 0;
  int nodes = 0;
  int gpus_per_node = 0;
  bool striped = false;  // placement: node n in group n mod groups (else n / nodes per group)
  Duration local_latency;
  LinkSpec link;
  std::optional<SwitchSpec> nvswitch;
  std::optional<NicSpec> nic;
  std::optional<IbSwitchSpec> ib_switch;
  TopologyValues own;               // the keys the topology's row declares (TopologyKind::declare)
  nlohmann::ordered_json resolved;  // defaults filled in, nested objects included
};

// Every key of every topology (describe, --set, the schema); a config binds only its topology's.
Params fabric_params();
Params link_params();
Params switch_params();
Params nic_params();
Params ib_switch_params();

// Binds and validates a whole fabric config (ConfigError naming the file and JSON pointer).
// `system_gpus` > 0 is the machine's GPU count (the system's "gpus", its one statement of that
// fact): the single-node topologies take it when the object has no "gpus" of its own, and a
// "gpus" that disagrees with it is an error.
FabricConfig parse_fabric_config(const ConfigNode& node, int system_gpus = 0);

}  // namespace t3sim::fabric
