#include "models/fabric/specs.h"

#include <array>
#include <cmath>

#include "models/fabric/builders.h"

namespace t3sim::fabric {

Bandwidth NicSpec::effective() const {
  constexpr uint64_t kPpm = 1'000'000;
  return line_rate.scaled(static_cast<uint64_t>(std::llround(efficiency * kPpm)), kPpm);
}

Params fabric_params() {
  Params p;
  p.required("topology", ParamKind::kString, "topology builder").one_of(topology_names());
  p.optional("model", ParamKind::kString, "packet",
             "packet: store-and-forward packets through links (credits, per-packet round robin); "
             "flow: fluid flows sharing each edge by max-min fairness, rates recomputed when a "
             "flow starts or ends (faster at scale; see docs/cluster.md 'Flow-level fabric model')")
      .one_of({"packet", "flow"});
  p.optional("gpus", ParamKind::kInt, 0,
             "number of GPUs (ring, fully_connected, switch, torus_2d, cube_mesh, nvlink_pairs; "
             "two_level: optional cross-check)")
      .range(0, kMaxGpus);
  p.optional("nodes", ParamKind::kInt, 0, "two_level, leaf_spine: number of nodes")
      .range(0, kMaxGpus);
  p.optional("gpus_per_node", ParamKind::kInt, 0,
             "two_level, leaf_spine: GPUs (and NICs, rails) per node")
      .range(0, kMaxGpus);
  p.optional("rows", ParamKind::kInt, 0,
             "torus_2d: rows of the grid; columns = gpus / rows (each dimension at least 2)")
      .range(0, kMaxGpus);
  p.optional("nodes_per_leaf", ParamKind::kInt, 0,
             "leaf_spine: nodes per group; each group has one leaf switch per rail")
      .range(0, kMaxGpus);
  p.optional("oversubscription", ParamKind::kReal, 1.0,
             "leaf_spine: leaf down / up ports (1 = full bisection); uplinks = "
             "ceil(nodes_per_leaf / oversubscription)")
      .range(1.0, 1024.0);
  p.optional("placement", ParamKind::kString, "blocked",
             "leaf_spine: which leaf group node n sits in; blocked: n / nodes_per_leaf "
             "(consecutive nodes share a leaf); striped: n mod groups (consecutive nodes sit in "
             "consecutive groups, as a scheduler spreading a job over leaves). Up/down routing "
             "spreads by the physical position either way")
      .one_of({"blocked", "striped"});
  p.optional("bidirectional", ParamKind::kBool, true,
             "ring: route over both directions (false: only g -> g-1, T3's direction; both wires "
             "still exist)");
  p.optional("local_latency", ParamKind::kDuration, "0 ns",
             "delay of a send with src == dst (never touches a link)");
  p.required("link", ParamKind::kObject, "GPU link, one direction (see link params)");
  p.optional("switch", ParamKind::kObject, nullptr,
             "NVSwitch plane (switch, two_level, leaf_spine) or the host's PCIe switch "
             "(nvlink_pairs: port_bandwidth is each GPU's PCIe rate)");
  p.optional("nic", ParamKind::kObject, nullptr, "per-GPU network adapter (two_level, leaf_spine)");
  p.optional("ib_switch", ParamKind::kObject, nullptr,
             "InfiniBand switch: rail switch (two_level), leaf and spine (leaf_spine)");
  return p;
}

Params link_params() {
  Params p;
  p.required("bandwidth", ParamKind::kBandwidth, "per-direction bandwidth").at_least(1);
  p.required("latency", ParamKind::kDuration, "one-way latency after serialisation");
  p.optional("packet_size", ParamKind::kBytes, "64 KiB",
             "fabric-wide packet size: fidelity knob (store-and-forward per packet per hop; "
             "halving it moves large transfers < 2 %)")
      .range(1, 4294967295.0);  // packet sizes are 32-bit in the flow table
  p.optional("credits", ParamKind::kInt, 0,
             "receive buffer per link direction in packets (back-pressure); 0 = unlimited")
      .range(0, kMaxCredits);
  return p;
}

Params switch_params() {
  Params p;
  p.required("latency", ParamKind::kDuration, "switching latency per traversal");
  p.required("port_bandwidth", ParamKind::kBandwidth, "per port and direction").at_least(1);
  p.optional("ports", ParamKind::kInt, 64, "GPU-facing ports of the plane").range(1, kMaxGpus);
  p.optional("reduce_bandwidth", ParamKind::kBandwidth, "0 B/s",
             "in-switch reduction (NVLink SHARP) throughput per GPU-facing port; 0 = the switch "
             "cannot reduce");
  return p;
}

Params nic_params() {
  Params p;
  p.required("bandwidth", ParamKind::kBandwidth, "line rate per direction").at_least(1);
  p.optional("efficiency", ParamKind::kReal, 1.0,
             "achievable / line rate (protocol overhead); effective rate = bandwidth x efficiency")
      .range(1e-6, 1.0);
  p.required("latency", ParamKind::kDuration, "per NIC traversal (send and receive side each)");
  return p;
}

Params ib_switch_params() {
  Params p;
  p.required("latency", ParamKind::kDuration, "port-to-port latency");
  p.required("port_bandwidth", ParamKind::kBandwidth, "per port and direction").at_least(1);
  p.optional("ports", ParamKind::kInt, 64,
             "ports of one switch (radix): a rail switch takes one per node, a leaf one per node "
             "plus its uplinks")
      .range(1, kMaxGpus);
  return p;
}

namespace {

struct OptionalKey {
  ConfigKey flag;
  const char* name;
};
constexpr std::array<OptionalKey, 11> kOptionalKeys{{{kKeyGpus, "gpus"},
                                                     {kKeyNodes, "nodes"},
                                                     {kKeyGpusPerNode, "gpus_per_node"},
                                                     {kKeyBidirectional, "bidirectional"},
                                                     {kKeySwitch, "switch"},
                                                     {kKeyNic, "nic"},
                                                     {kKeyIbSwitch, "ib_switch"},
                                                     {kKeyNodesPerLeaf, "nodes_per_leaf"},
                                                     {kKeyOversubscription, "oversubscription"},
                                                     {kKeyPlacement, "placement"},
                                                     {kKeyRows, "rows"}}};

void check_keys(const TopologyKind& kind, const BoundParams& b, const ConfigNode& node,
                uint32_t derived) {
  for (const OptionalKey& k : kOptionalKeys) {
    const bool needed = (kind.needs & k.flag & ~derived) != 0;
    const bool allowed = ((kind.needs | kind.allows) & k.flag) != 0;
    const bool given = b.present(k.name);
    if (given && !allowed) {
      node.fail_key(k.name, "key '" + std::string(k.name) + "' is not used by topology '" +
                                std::string(kind.name) + "' (remove it)");
    }
    if (!given && needed) {
      node.fail("topology '" + std::string(kind.name) + "' needs key '" + k.name + "'");
    }
  }
}

LinkSpec bind_link(const ConfigNode& n, nlohmann::ordered_json& out) {
  const BoundParams b = bind(link_params(), n);
  out = b.resolved();
  return LinkSpec{b.bandwidth("bandwidth"), b.duration("latency"), b.bytes("packet_size"),
                  static_cast<uint32_t>(b.integer("credits"))};
}

SwitchSpec bind_switch(const ConfigNode& n, nlohmann::ordered_json& out) {
  const BoundParams b = bind(switch_params(), n);
  out = b.resolved();
  return SwitchSpec{b.duration("latency"), b.bandwidth("port_bandwidth"),
                    static_cast<int>(b.integer("ports")), b.bandwidth("reduce_bandwidth")};
}

NicSpec bind_nic(const ConfigNode& n, nlohmann::ordered_json& out) {
  const BoundParams b = bind(nic_params(), n);
  out = b.resolved();
  return NicSpec{b.bandwidth("bandwidth"), b.real("efficiency"), b.duration("latency")};
}

IbSwitchSpec bind_ib_switch(const ConfigNode& n, nlohmann::ordered_json& out) {
  const BoundParams b = bind(ib_switch_params(), n);
  out = b.resolved();
  return IbSwitchSpec{b.duration("latency"), b.bandwidth("port_bandwidth"),
                      static_cast<int>(b.integer("ports"))};
}

}  // namespace

FabricConfig parse_fabric_config(const ConfigNode& node, int system_gpus) {
  const BoundParams b = bind(fabric_params(), node);
  FabricConfig c;
  c.topology = b.str("topology");
  c.fluid = b.str("model") == "flow";
  const TopologyKind& kind = *find_topology(c.topology);
  const bool takes_gpus = system_gpus > 0 && (kind.needs & kKeyGpus) != 0;
  check_keys(kind, b, node, takes_gpus ? kKeyGpus : 0u);
  c.gpus = static_cast<int>(b.integer("gpus"));
  if (takes_gpus && !b.present("gpus")) c.gpus = system_gpus;
  if (system_gpus > 0 && b.present("gpus") && c.gpus != system_gpus) {
    node.fail_key("gpus", "fabric.gpus = " + std::to_string(c.gpus) +
                              " but the system's \"gpus\" is " + std::to_string(system_gpus) +
                              " (drop fabric.gpus: the fabric takes the system's count)");
  }
  c.nodes = static_cast<int>(b.integer("nodes"));
  c.gpus_per_node = static_cast<int>(b.integer("gpus_per_node"));
  c.rows = static_cast<int>(b.integer("rows"));
  c.bidirectional = b.boolean("bidirectional");
  c.nodes_per_leaf = static_cast<int>(b.integer("nodes_per_leaf"));
  c.oversubscription = b.real("oversubscription");
  c.striped = b.str("placement") == "striped";
  c.local_latency = b.duration("local_latency");
  c.resolved = b.resolved();
  if (takes_gpus) c.resolved["gpus"] = c.gpus;
  c.link = bind_link(b.node("link"), c.resolved["link"]);
  if (b.present("switch")) c.nvswitch = bind_switch(b.node("switch"), c.resolved["switch"]);
  if (b.present("nic")) c.nic = bind_nic(b.node("nic"), c.resolved["nic"]);
  if (b.present("ib_switch"))
    c.ib_switch = bind_ib_switch(b.node("ib_switch"), c.resolved["ib_switch"]);
  for (const OptionalKey& k : kOptionalKeys) {  // keys this topology ignores stay out of the dump
    if (((kind.needs | kind.allows) & k.flag) == 0) c.resolved.erase(k.name);
  }
  if (auto p = check_sizes(c)) node.fail_key(p->key, p->message);
  if ((kind.needs & kKeyNodes) != 0) c.resolved["gpus"] = c.nodes * c.gpus_per_node;
  return c;
}

}  // namespace t3sim::fabric
