#include "models/fabric/fabric.h"

#include <limits>
#include <map>
#include <utility>

#include "models/fabric/builders.h"
#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::fabric {

Fabric::Fabric(Simulator& sim, Component* parent, std::string name, Topology topo,
               nlohmann::ordered_json resolved_config, bool wired)
    : Component(sim, parent, std::move(name)),
      topo_(std::move(topo)),
      routes_(topo_),
      flows_(routes_, topo_.packet_size),
      resolved_(std::move(resolved_config)),
      reducers_(topo_.nodes.size(), nullptr),
      wired_(wired) {
  for (const TopoNode& n : topo_.nodes) nodes_.push_back(std::make_unique<Node>(sim, this, n));
  if (wired_ && topo_.fluid) {
    FluidSink& sink = *this;
    fluid_ = std::make_unique<FluidNet>(sim, topo_, routes_, sink);
  } else if (wired_) {
    build_links();
    reductions_ = std::make_unique<SwitchReductions>(
        sim, this, topo_, routes_,
        [this](int src, int dst, Segment seg, Bytes bytes, common::FabricReceiver* rx,
               uint64_t tag) { send_segment(src, dst, seg, bytes, rx, tag); });
  }
  register_stats();
}

Fabric::~Fabric() = default;

std::optional<common::GpuRotation> Fabric::symmetry() const {
  const TopologyKind* k = find_topology(topo_.kind);
  if (k == nullptr || k->symmetry == Symmetry::kNone) return std::nullopt;
  if (k->symmetry == Symmetry::kRotation) return common::GpuRotation{1, topo_.num_gpus};
  // kNodesByRails and kNodesByRailsRouted
  return common::GpuRotation{topo_.num_gpus / topo_.gpus_per_node, topo_.gpus_per_node};
}

void Fabric::build_links() {
  inputs_.reserve(topo_.edges.size());
  std::map<std::pair<uint32_t, uint32_t>, int> parallel;  // earlier edges between the same nodes
  for (size_t e = 0; e < topo_.edges.size(); ++e) {
    const TopoEdge& te = topo_.edges[e];
    Node& from = *nodes_[te.from];
    Node& to = *nodes_[te.to];
    const int twin = parallel[{te.from, te.to}]++;  // leaf_spine's parallel uplinks: _1, _2, ...
    const std::string suffix = twin == 0 ? "" : "_" + std::to_string(twin);
    egress_.push_back(std::make_unique<Egress>(sim(), flows_, inputs_));
    OutPort<Packet>& out = from.add_out("to_" + to.name() + suffix, egress_.back().get());
    InPort<Packet>& in = to.add_in("from_" + from.name() + suffix, *this);
    auto link = std::make_unique<Link<Packet>>(sim(), &from, "to_" + to.name() + suffix, te.latency,
                                               te.bandwidth, te.credits);
    link->connect(out, in);
    egress_.back()->bind(out, *link);
    if (Timeline* tl = sim().timeline()) {  // bandwidth of each link direction
      const bool gpu = te.from < static_cast<uint32_t>(topo_.num_gpus);
      egress_.back()->trace_to(tl->counter(gpu ? static_cast<int>(te.from) : Timeline::kFabricPid,
                                           "link " + from.name() + " -> " + to.name() + " GB/s"));
    }
    const Egress* eg = egress_.back().get();
    const Simulator* s = &sim();
    link->stats().add_formula(
        "utilisation",
        [eg, s] {
          const uint64_t elapsed = s->now().ps();
          return elapsed == 0 ? 0.0 : static_cast<double>(eg->busy().count_ps()) / elapsed;
        },
        "ratio", "busy_ps / elapsed time: share of the run spent serialising");
    inputs_.push_back(&in);
    links_.push_back(std::move(link));
  }
}

void Fabric::register_stats() {
  stats().add("messages", messages_, "count", "messages sent (incl. src == dst)");
  stats().add("packets", packets_, "count", "packets injected into links");
  stats().add_formula(
      "total_link_bytes", [this] { return static_cast<double>(total_link_bytes()); }, "B",
      "sum of bytes over all link directions (a message counts once per hop)");
}

void Fabric::bad_gpu(int gpu, const char* role) const {
  throw ModelError(path(), std::string("send: ") + role + " gpu " + std::to_string(gpu) +
                               " out of range [0, " + std::to_string(topo_.num_gpus) + ")");
}

void Fabric::send(int src, int dst, Bytes bytes, common::FabricReceiver* rx, uint64_t tag) {
  send_segment(src, dst, Segment::kWhole, bytes, rx, tag);
}

void Fabric::send_segment(int src, int dst, common::PathSegment seg, Bytes bytes,
                          common::FabricReceiver* rx, uint64_t tag) {
  check_gpu(src, "source");
  check_gpu(dst, "destination");
  if (!wired_) throw ModelError(path(), "send on a validation-only fabric (built without links)");
  if (seg != Segment::kWhole && src == dst) {
    throw ModelError(path(), "in-switch segment from GPU " + std::to_string(src) + " to itself");
  }
  if (fluid_) {
    if (seg != Segment::kWhole) {
      throw ModelError(path(),
                       "in-switch segments need fabric.model \"packet\" (the flow model "
                       "has no packets for a switch to reduce or multicast)");
    }
    Node& from = *nodes_[src];
    from.bytes_sent.inc(bytes.count());
    from.messages_sent.inc();
    messages_.inc();
    if (src != dst) expected_link_bytes_.inc(bytes.count() * routes_.hops(src, dst));
    fluid_->send(src, dst, bytes, rx, tag);
    return;
  }
  const uint32_t m = flows_.add(src, dst, bytes, rx, tag, seg);
  // A segment leaving the switch is sent by the switch (conservation counts every node).
  const uint32_t first = src == dst ? 0 : flows_.first_slot_of(m);
  // The hop held only this message's packets: its egress was idle for this flow.
  const bool was_idle = src == dst || flows_.slot(first).ready == flows_.message(m).packets;
  Node& from = seg == Segment::kFromSwitch ? *nodes_[topo_.edges[flows_.slot(first).edge].from]
                                           : *nodes_[src];
  from.bytes_sent.inc(bytes.count());
  from.messages_sent.inc();
  messages_.inc();
  if (src == dst) {
    sim().call_at<Fabric, &Fabric::deliver_local>(now() + topo_.local_latency, this, m);
    return;
  }
  const uint32_t packets = flows_.message(m).packets;
  from.packets_sent.inc(packets);
  packets_.inc(packets);
  const uint64_t hops = seg == Segment::kWhole ? static_cast<uint64_t>(routes_.hops(src, dst)) : 1;
  expected_link_bytes_.inc(bytes.count() * hops);
  if (was_idle) egress_[flows_.slot(first).edge]->activate(first);
}

void Fabric::reduce_in_switch(int src, int via, const common::SwitchReduction& r,
                              common::FabricReceiver* up_rx, uint64_t up_tag) {
  check_gpu(src, "source");
  check_gpu(r.dst, "destination");
  if (via >= 0) check_gpu(via, "route");
  if (r.down_from >= 0) check_gpu(r.down_from, "route");
  if (!has_switch_reduction()) {
    throw ModelError(path(), fluid_ ? "in-switch reduction needs fabric.model \"packet\""
                                    : "no switch of this fabric reduces (switch.reduce_bandwidth)");
  }
  reductions_->contribute(src, via, r, up_rx, up_tag);
}

void Fabric::receive(Packet& p) {
  const Slot& s = flows_.slot(p.slot);
  const uint32_t at = topo_.edges[s.edge].to;
  Node& node = *nodes_[at];
  if (s.last_hop) {
    inputs_[s.edge]->release();  // consumed into GPU memory: the buffer frees at once
    node.packets_received.inc();
    node.bytes_received.inc(p.bytes);
    if (p.last) complete(p.msg, at);
    return;
  }
  node.packets_forwarded.inc();
  node.bytes_forwarded.inc(p.bytes);
  if (SwitchReducer* r = reducers_[at]) {
    const Message& m = flows_.message(p.msg);
    r->on_packet(SwitchPacket{m.src, m.dst, p.msg, Bytes(p.bytes), p.last != 0, now()});
  }
  const uint32_t next = p.slot + 1;
  if (flows_.arrive(next)) egress_[flows_.slot(next).edge]->activate(next);
}

void Fabric::fluid_delivered(int /*src*/, int dst, Bytes bytes, common::FabricReceiver* rx,
                             uint64_t tag) {
  Node& to = *nodes_[dst];
  to.bytes_received.inc(bytes.count());
  to.messages_received.inc();
  if (rx != nullptr) rx->delivered(tag);
}

void Fabric::deliver_local(uint64_t msg) {
  const Message& m = flows_.message(static_cast<uint32_t>(msg));
  nodes_[m.dst]->bytes_received.inc(m.bytes.count());
  complete(static_cast<uint32_t>(msg), static_cast<uint32_t>(m.dst));
}

void Fabric::complete(uint32_t msg, uint32_t at) {
  const Message m = flows_.complete(msg);  // state settled before the callback may send again
  nodes_[at]->messages_received.inc();
  if (m.rx != nullptr) m.rx->delivered(m.tag);
}

Bandwidth Fabric::path_bandwidth(int src, int dst) const {
  check_gpu(src, "source");
  check_gpu(dst, "destination");
  return routes_.bandwidth(src, dst);
}

Duration Fabric::path_latency(int src, int dst) const {
  check_gpu(src, "source");
  check_gpu(dst, "destination");
  return src == dst ? topo_.local_latency : routes_.latency(src, dst);
}

int Fabric::hops(int src, int dst) const {
  check_gpu(src, "source");
  check_gpu(dst, "destination");
  return routes_.hops(src, dst);
}

std::vector<common::PathLink> Fabric::path_links(int src, int dst) const {
  check_gpu(src, "source");
  check_gpu(dst, "destination");
  std::vector<common::PathLink> out;
  for (const uint32_t e : routes_.path(src, dst)) out.push_back({e, topo_.edges[e].bandwidth});
  return out;
}

uint64_t Fabric::bytes_sent(int gpu) const {
  check_gpu(gpu, "queried");
  return nodes_[gpu]->bytes_sent.value();
}

uint64_t Fabric::bytes_received(int gpu) const {
  check_gpu(gpu, "queried");
  return nodes_[gpu]->bytes_received.value();
}

const Link<Packet>& Fabric::link(size_t e) const {
  if (e >= links_.size())
    throw ModelError(path(), "no link " + std::to_string(e) + " (packet model only)");
  return *links_[e];
}

Duration Fabric::link_busy(size_t e) const {
  if (e >= egress_.size())
    throw ModelError(path(), "no link " + std::to_string(e) + " (packet model only)");
  return egress_[e]->busy();
}

uint64_t Fabric::total_link_bytes() const {
  if (fluid_) return fluid_->link_bytes();
  uint64_t sum = 0;
  for (const auto& l : links_) sum += l->bytes_carried();
  return sum;
}

std::optional<size_t> Fabric::find_link(const std::string& from, const std::string& to) const {
  for (size_t e = 0; e < topo_.edges.size(); ++e) {
    if (topo_.nodes[topo_.edges[e].from].name == from &&
        topo_.nodes[topo_.edges[e].to].name == to) {
      return e;
    }
  }
  return std::nullopt;
}

void Fabric::set_switch_reducer(const std::string& switch_name, SwitchReducer* reducer) {
  if (fluid_ && reducer != nullptr) {
    throw ModelError(path(),
                     "in-switch reduction needs fabric.model \"packet\" (the flow model "
                     "has no packets for a switch to reduce)");
  }
  for (size_t n = 0; n < topo_.nodes.size(); ++n) {
    if (topo_.nodes[n].name != switch_name) continue;
    if (topo_.nodes[n].kind != NodeKind::kNvSwitch && topo_.nodes[n].kind != NodeKind::kIbSwitch) {
      throw ModelError(path(), "'" + switch_name + "' is not a switch");
    }
    reducers_[n] = reducer;
    return;
  }
  throw ModelError(path(), "no switch named '" + switch_name + "'");
}

void Fabric::finish() {
  if (const uint64_t n = messages_in_flight(); n != 0) {
    size_t starved = 0;
    for (const auto& e : egress_) starved += e->waiting_for_credit() ? 1 : 0;
    throw ModelError(path(), std::to_string(n) +
                                 " message(s) still in flight at the end of the run" +
                                 (starved == 0 ? std::string()
                                               : "; " + std::to_string(starved) +
                                                     " link(s) wait for credits: a cyclic credit "
                                                     "dependency (deadlock); use credits 0 or "
                                                     "acyclic routes"));
  }
  uint64_t sent = 0;
  uint64_t received = 0;
  for (const auto& node : nodes_) {  // switches too: in-switch segments start or end there
    sent += node->bytes_sent.value();
    received += node->bytes_received.value();
  }
  if (sent != received) {
    throw ModelError(path(), "bytes not conserved: sent " + std::to_string(sent) + " B, received " +
                                 std::to_string(received) + " B");
  }
  if (total_link_bytes() != expected_link_bytes_.value()) {
    throw ModelError(path(), "link bytes " + std::to_string(total_link_bytes()) +
                                 " B != sum of message bytes x hops " +
                                 std::to_string(expected_link_bytes_.value()) + " B");
  }
}

}  // namespace t3sim::fabric
