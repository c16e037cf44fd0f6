#include "models/fabric/fluid.h"

#include <algorithm>

#include "sim/errors.h"

namespace t3sim::fabric {

// One transmitting message: the head of its pair, on the edges of the pair's route.
struct FluidNet::Flow {
  Flow(FluidNet* n, uint32_t i) : net(n), id(i), done(this), enter(this) {}
  void on_done() { net->finished(*this); }
  void on_enter() { net->enter(*this); }

  FluidNet* net;
  uint32_t id;
  Pair* pair = nullptr;
  uint32_t msg = UINT32_MAX;
  uint64_t rate = 0;        // bytes/s; 0 until the first allocation
  U128 left = 0;            // bytes x kPsPerSecond still to send
  Tick since;               // when `left` was last brought up to date
  Tick started;             // when the message became the pair's head flow
  bool in_wake = false;     // it followed the pair's previous message without a gap
  uint32_t bottleneck = 0;  // edge that fixed the rate in the last filling
  uint64_t mark = 0;        // epoch of the last component it joined
  bool frozen = false;
  MemberEvent<Flow, &Flow::on_done> done;
  MemberEvent<Flow, &Flow::on_enter> enter;
};

FluidNet::FluidNet(Simulator& sim, const Topology& topo, const RouteTable& routes, FluidSink& sink)
    : sim_(sim),
      topo_(topo),
      routes_(routes),
      sink_(sink),
      on_edge_(topo.edges.size()),
      edge_mark_(topo.edges.size(), 0),
      edge_cap_(topo.edges.size(), 0),
      edge_left_(topo.edges.size(), 0) {}

FluidNet::~FluidNet() = default;

uint32_t FluidNet::new_msg(const Msg& m) {
  if (free_msgs_.empty()) {
    msgs_.push_back(m);
    return static_cast<uint32_t>(msgs_.size() - 1);
  }
  const uint32_t id = free_msgs_.back();
  free_msgs_.pop_back();
  msgs_[id] = m;
  return id;
}

void FluidNet::send(int src, int dst, Bytes bytes, common::FabricReceiver* rx, uint64_t tag) {
  ++in_flight_;
  const uint32_t id = new_msg(Msg{src, dst, bytes, rx, tag});
  if (src == dst) {
    sim_.call_at<FluidNet, &FluidNet::deliver>(sim_.now() + topo_.local_latency, this, id);
    return;
  }
  const uint64_t key = static_cast<uint64_t>(src) * static_cast<uint64_t>(topo_.num_gpus) +
                       static_cast<uint64_t>(dst);
  Pair& p = pairs_[key];
  if (p.path.empty()) {
    p.path = routes_.path(src, dst);
    Bandwidth narrowest = Bandwidth::bytes_per_s(UINT64_MAX);
    for (const uint32_t e : p.path) {  // ties: the last narrowest hop
      if (topo_.edges[e].bandwidth <= narrowest) {
        narrowest = topo_.edges[e].bandwidth;
        p.narrowest = e;
      }
    }
  }
  if (p.head == UINT32_MAX) {
    p.head = id;
  } else {
    msgs_[p.tail].next = id;
  }
  p.tail = id;
  if (p.flow == UINT32_MAX) start(p);
}

// The pair's head message becomes a flow on the pair's route.
void FluidNet::start(Pair& p) {
  uint32_t fid = 0;
  if (free_flows_.empty()) {
    fid = static_cast<uint32_t>(flows_.size());
    flows_.push_back(std::make_unique<Flow>(this, fid));
  } else {
    fid = free_flows_.back();
    free_flows_.pop_back();
  }
  Flow& f = *flows_[fid];
  f.pair = &p;
  take_head(f, false);
  p.flow = fid;
  // The first packet reaches the narrowest hop store-and-forward; until then that hop carries
  // nothing of this message (from an idle pair: later messages follow in its wake).
  const Bytes packet = std::min(msgs_[p.head].bytes, topo_.packet_size);
  Duration ahead;
  for (const uint32_t e : p.path) {
    if (e == p.narrowest) break;
    ahead += topo_.edges[e].latency + transfer_time(packet, topo_.edges[e].bandwidth);
  }
  sim_.schedule(f.enter, sim_.now() + ahead);
}

// The flow carries its pair's head message from now on, at no rate until the next reallocation;
// in_wake: it follows the pair's previous message, whose first packets already paved the route.
void FluidNet::take_head(Flow& f, bool in_wake) {
  f.msg = f.pair->head;
  f.rate = 0;
  f.left = static_cast<U128>(msgs_[f.msg].bytes.count()) * kPsPerSecond;
  f.since = sim_.now();
  f.started = sim_.now();
  f.in_wake = in_wake;
}

void FluidNet::enter(Flow& f) {
  f.since = sim_.now();
  for (const uint32_t e : f.pair->path) on_edge_[e].push_back(f.id);
  reallocate(f.pair->path);
}

// The flow's last byte has left the source: delivery follows after the route's fixed delay (never
// before the pair's previous message), and the pair's next message, if any, takes over at once.
void FluidNet::finished(Flow& f) {
  Pair& p = *f.pair;
  const Msg& m = msgs_[f.msg];
  link_bytes_ += m.bytes.count() * p.path.size();
  const bool alone = f.rate >= topo_.edges[p.narrowest].bandwidth.bytes_per_second();
  const uint32_t bottleneck = alone ? p.narrowest : f.bottleneck;
  Tick at = sim_.now() + tail_delay(p.path, bottleneck, m.bytes);
  if (!f.in_wake) at = std::max(at, f.started + alone_time(p.path, m.bytes));
  at = std::max(at, p.last_delivery);
  p.last_delivery = at;
  sim_.call_at<FluidNet, &FluidNet::deliver>(at, this, f.msg);
  p.head = m.next;
  if (p.head == UINT32_MAX) {
    p.tail = UINT32_MAX;
    p.flow = UINT32_MAX;
    for (const uint32_t e : p.path) {
      std::vector<uint32_t>& v = on_edge_[e];
      *std::find(v.begin(), v.end(), f.id) = v.back();
      v.pop_back();
    }
    free_flows_.push_back(f.id);
  } else {
    take_head(f, true);
  }
  reallocate(p.path);
}

void FluidNet::deliver(uint64_t id) {
  const Msg m = msgs_[id];
  free_msgs_.push_back(static_cast<uint32_t>(id));
  --in_flight_;
  sink_.fluid_delivered(m.src, m.dst, m.bytes, m.rx, m.tag);
}

// The message alone on its route: its first packet crosses every hop store-and-forward, the rest
// follow at the narrowest hop's rate.
Duration FluidNet::alone_time(const std::vector<uint32_t>& path, Bytes bytes) const {
  Duration sum;
  Bandwidth narrowest = Bandwidth::bytes_per_s(UINT64_MAX);
  const Bytes packet = std::min(bytes, topo_.packet_size);
  for (const uint32_t e : path) {
    const TopoEdge& te = topo_.edges[e];
    sum += te.latency + transfer_time(packet, te.bandwidth);
    narrowest = std::min(narrowest, te.bandwidth);
  }
  return sum + transfer_time(Bytes(bytes.count() - packet.count()), narrowest);
}

// After the last byte has passed the bottleneck: that hop's latency, then the last packet's
// store-and-forward over the hops behind it. What lies before the bottleneck overlapped with the
// queueing there.
Duration FluidNet::tail_delay(const std::vector<uint32_t>& path, uint32_t bottleneck,
                              Bytes bytes) const {
  const Bytes packet = std::min(bytes, topo_.packet_size);
  Duration sum;
  bool behind = false;
  for (const uint32_t e : path) {
    const TopoEdge& te = topo_.edges[e];
    if (behind) sum += transfer_time(packet, te.bandwidth);
    if (behind || e == bottleneck) sum += te.latency;
    behind = behind || e == bottleneck;
  }
  return sum;
}

Bandwidth FluidNet::rate(int src, int dst) const {
  const uint64_t key = static_cast<uint64_t>(src) * static_cast<uint64_t>(topo_.num_gpus) +
                       static_cast<uint64_t>(dst);
  const auto it = pairs_.find(key);
  if (it == pairs_.end() || it->second.flow == UINT32_MAX) return Bandwidth{};
  return Bandwidth::bytes_per_s(flows_[it->second.flow]->rate);
}

// The flows connected to `seed_edges` through shared edges, and their edges.
void FluidNet::collect(const std::vector<uint32_t>& seed_edges) {
  ++epoch_;
  comp_flows_.clear();
  comp_edges_.clear();
  std::vector<uint32_t>& stack = stack_;
  stack.assign(seed_edges.begin(), seed_edges.end());
  while (!stack.empty()) {
    const uint32_t e = stack.back();
    stack.pop_back();
    if (edge_mark_[e] == epoch_) continue;
    edge_mark_[e] = epoch_;
    comp_edges_.push_back(e);
    for (const uint32_t fid : on_edge_[e]) {
      Flow& f = *flows_[fid];
      if (f.mark == epoch_) continue;
      f.mark = epoch_;
      comp_flows_.push_back(fid);
      for (const uint32_t e2 : f.pair->path) {
        if (edge_mark_[e2] != epoch_) stack.push_back(e2);
      }
    }
  }
}

// Progressive filling over the component: the edge with the smallest fair share (capacity left /
// unfrozen flows on it; ties: first found) fixes the rate of its unfrozen flows, which then
// leave every edge of their routes with that much less capacity.
void FluidNet::fill() {
  for (const uint32_t e : comp_edges_) {
    edge_cap_[e] = topo_.edges[e].bandwidth.bytes_per_second();
    edge_left_[e] = static_cast<uint32_t>(on_edge_[e].size());
  }
  for (const uint32_t fid : comp_flows_) flows_[fid]->frozen = false;
  size_t unfrozen = comp_flows_.size();
  while (unfrozen > 0) {
    uint32_t best = UINT32_MAX;
    for (const uint32_t e : comp_edges_) {
      if (edge_left_[e] == 0) continue;
      if (best == UINT32_MAX || static_cast<U128>(edge_cap_[e]) * edge_left_[best] <
                                    static_cast<U128>(edge_cap_[best]) * edge_left_[e]) {
        best = e;
      }
    }
    const uint64_t share = std::max<uint64_t>(1, edge_cap_[best] / edge_left_[best]);
    for (const uint32_t fid : on_edge_[best]) {
      Flow& f = *flows_[fid];
      if (f.frozen) continue;
      f.frozen = true;
      f.bottleneck = best;
      --unfrozen;
      pending_rate_[fid] = share;
      for (const uint32_t e : f.pair->path) {
        edge_cap_[e] -= std::min(edge_cap_[e], share);
        --edge_left_[e];
      }
    }
  }
}

// Brings the component's flows up to date at the old rates, refills, and moves the completion of
// every flow whose rate changed.
void FluidNet::reallocate(const std::vector<uint32_t>& seed_edges) {
  collect(seed_edges);
  const Tick now = sim_.now();
  if (pending_rate_.size() < flows_.size()) pending_rate_.resize(flows_.size());
  for (const uint32_t fid : comp_flows_) {
    Flow& f = *flows_[fid];
    const U128 sent = static_cast<U128>(f.rate) * (now - f.since).count_ps();
    f.left -= std::min(f.left, sent);
    f.since = now;
  }
  fill();
  for (const uint32_t fid : comp_flows_) {
    Flow& f = *flows_[fid];
    const uint64_t r = pending_rate_[fid];
    if (r == f.rate && f.done.scheduled()) continue;  // same rate: the same finishing tick
    f.rate = r;
    const U128 ps = (f.left + r - 1) / r;
    sim_.schedule(f.done, now + Duration::ps(static_cast<uint64_t>(ps)));
  }
}

}  // namespace t3sim::fabric
