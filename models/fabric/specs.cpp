#include "models/fabric/specs.h"

#include <cmath>

#include "models/fabric/builders.h"
#include "models/fabric/topology_keys.h"

namespace t3sim::fabric {

Bandwidth NicSpec::effective() const {
  constexpr uint64_t kPpm = 1'000'000;
  return line_rate.scaled(static_cast<uint64_t>(std::llround(efficiency * kPpm)), kPpm);
}

namespace {

// Keys every topology has.
Params core_params() {
  Params p;
  p.required("topology", ParamKind::kString, "topology builder").one_of(topology_names());
  p.optional("model", ParamKind::kString, "packet",
             "packet: store-and-forward packets through links (credits, per-packet round robin); "
             "flow: fluid flows sharing each edge by max-min fairness, rates recomputed when a "
             "flow starts or ends (faster at scale; see docs/cluster.md 'Flow-level fabric model')")
      .one_of({"packet", "flow"});
  p.optional("local_latency", ParamKind::kDuration, "0 ns",
             "delay of a send with src == dst (never touches a link)");
  p.required("link", ParamKind::kObject, "GPU link, one direction (see link params)");
  return p;
}

}  // namespace

Params fabric_params() {
  Params p = core_params();
  add_every_topology_key(p);
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

// The row `node` names. The same one-line errors as bind() gives for any other key.
const TopologyKind& read_topology(const ConfigNode& node) {
  if (!node.json().is_object()) node.fail("expected an object");
  const Params core = core_params();
  const ParamSpec& spec = *core.find("topology");
  if (!node.has("topology")) {
    node.fail("missing required key 'topology' (string: " + spec.description + ")");
  }
  ConfigNode t = node.child("topology");
  if (t.json().is_object() && t.json().contains("value")) t = t.child("value");
  if (!t.json().is_string()) t.fail("'topology' must be a string, got " + t.json().dump());
  const auto name = t.json().get<std::string>();
  const TopologyKind* kind = find_topology(name);
  if (kind == nullptr) {
    std::string all;
    for (const auto& n : spec.choices) all += (all.empty() ? "" : ", ") + n;
    const std::string hint = nearest_name(name, spec.choices);
    node.fail_key("topology", "'" + name + "' is not one of: " + all +
                                  (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
  }
  return *kind;
}

// Keys of other topologies are refused by name, and needed keys asked for with their meaning,
// before bind() checks the rest (unknown keys with a did-you-mean, types, units, ranges).
void check_keys(const TopologyKind& kind, const Params& accepted, const ConfigNode& node) {
  const Params every = fabric_params();
  for (auto it = node.json().begin(); it != node.json().end(); ++it) {
    const std::string& key = it.key();
    if (is_annotation_key(key) || accepted.find(key) != nullptr) continue;
    if (every.find(key) != nullptr) {
      node.fail_key(key, "key '" + key + "' is not used by topology '" + std::string(kind.name) +
                             "' (remove it)");
    }
  }
  for (const ParamSpec& s : accepted.specs()) {
    if (!s.default_value && !node.has(s.name)) {
      node.fail("topology '" + std::string(kind.name) + "' needs key '" + s.name + "' (" +
                s.description + ")");
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
  const TopologyKind& kind = read_topology(node);
  const bool takes_gpus = system_gpus > 0 && (kind.needs & kKeyGpus) != 0;
  Params accepted = core_params();
  add_topology_keys(accepted, kind, takes_gpus ? kKeyGpus : 0u);
  check_keys(kind, accepted, node);
  const BoundParams b = bind(accepted, node);
  const auto size = [&](const char* key) {
    return accepted.find(key) != nullptr ? static_cast<int>(b.integer(key)) : 0;
  };
  FabricConfig c;
  c.topology = std::string(kind.name);
  c.fluid = b.str("model") == "flow";
  c.gpus = size("gpus");
  if (takes_gpus && !b.present("gpus")) c.gpus = system_gpus;
  if (system_gpus > 0 && accepted.find("gpus") != nullptr && b.present("gpus") &&
      c.gpus != system_gpus) {
    node.fail_key("gpus", "fabric.gpus = " + std::to_string(c.gpus) +
                              " but the system's \"gpus\" is " + std::to_string(system_gpus) +
                              " (drop fabric.gpus: the fabric takes the system's count)");
  }
  c.nodes = size("nodes");
  c.gpus_per_node = size("gpus_per_node");
  c.striped = accepted.find("placement") != nullptr && b.str("placement") == "striped";
  c.local_latency = b.duration("local_latency");
  c.own = capture(own_params(kind), b);
  c.resolved = b.resolved();
  if (takes_gpus) c.resolved["gpus"] = c.gpus;
  c.link = bind_link(b.node("link"), c.resolved["link"]);
  if (b.present("switch")) c.nvswitch = bind_switch(b.node("switch"), c.resolved["switch"]);
  if (b.present("nic")) c.nic = bind_nic(b.node("nic"), c.resolved["nic"]);
  if (b.present("ib_switch"))
    c.ib_switch = bind_ib_switch(b.node("ib_switch"), c.resolved["ib_switch"]);
  if (auto p = check_sizes(c)) node.fail_key(p->key, p->message);
  if ((kind.needs & kKeyNodes) != 0) c.resolved["gpus"] = c.nodes * c.gpus_per_node;
  return c;
}

}  // namespace t3sim::fabric
