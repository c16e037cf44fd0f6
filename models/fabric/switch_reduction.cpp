#include "models/fabric/switch_reduction.h"

#include <algorithm>
#include <utility>

#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::fabric {
namespace {

constexpr uint64_t kDownBit = 1ULL << 63;

}  // namespace

SwitchReductions::SwitchReductions(Simulator& sim, Component* parent, const Topology& topo,
                                   const RouteTable& routes, SendSegment send)
    : Component(sim, parent, "switch_reductions"),
      topo_(topo),
      routes_(routes),
      send_(std::move(send)),
      reducer_free_(topo.edges.size()),
      other_(static_cast<size_t>(topo.num_gpus), -2) {
  for (const TopoNode& n : topo_.nodes) {
    available_ = available_ || (n.kind == NodeKind::kNvSwitch && n.reduce_bandwidth > Bandwidth());
  }
  stats().add("reductions", reductions_, "count", "reductions completed in a switch");
  stats().add("contributions", contributions_, "count", "copies that reached a switch");
  stats().add("bytes_in", bytes_in_, "B", "bytes of the copies into the switches");
  stats().add("bytes_out", bytes_out_, "B", "bytes of the reduced copies out of the switches");
  stats().add("reducer_waits", reducer_waits_, "count",
              "reductions that waited for their port's reducer");
}

uint32_t SwitchReductions::switch_of(int src, int via) const {
  const bool two_hops = src != via && routes_.hops(src, via) == 2;
  const uint32_t node =
      two_hops ? topo_.edges[routes_.next_edge(static_cast<uint32_t>(src), via)].to : 0;
  if (!two_hops || topo_.nodes[node].kind != NodeKind::kNvSwitch ||
      topo_.nodes[node].reduce_bandwidth == Bandwidth()) {
    throw ModelError(path(), "GPU " + std::to_string(src) + " -> " + std::to_string(via) +
                                 " does not cross one reducing NVSwitch (switch "
                                 "reduce_bandwidth)");
  }
  return node;
}

int SwitchReductions::other_gpu(int gpu) const {
  int& o = other_[static_cast<size_t>(gpu)];
  if (o != -2) return o;
  o = -1;
  for (int g = 0; g < topo_.num_gpus && o < 0; ++g) {
    if (g != gpu && routes_.hops(gpu, g) == 2 &&
        topo_.nodes[topo_.edges[routes_.next_edge(static_cast<uint32_t>(gpu), g)].to].kind ==
            NodeKind::kNvSwitch) {
      o = g;
    }
  }
  if (o < 0) {
    throw ModelError(path(), "GPU " + std::to_string(gpu) + " shares no NVSwitch with another GPU");
  }
  return o;
}

void SwitchReductions::contribute(int src, int via, const common::SwitchReduction& r,
                                  common::FabricReceiver* up_rx, uint64_t up_tag) {
  if (via < 0) via = src == r.dst ? other_gpu(src) : r.dst;
  const uint32_t node = switch_of(src, via);
  auto [it, opened] = open_.try_emplace(Key{r.rx, r.tag}, 0);
  if (opened) {
    if (r.contributions == 0) throw ModelError(path(), "a reduction of no copies");
    it->second = reductions_live_.acquire(Reduction{r, 0, node, now()});
  } else {
    const common::SwitchReduction& o = reductions_live_[it->second].r;
    if (o.dst != r.dst || o.contributions != r.contributions || o.bytes != r.bytes ||
        reductions_live_[it->second].node != node) {
      throw ModelError(path(),
                       "copies of one reduction disagree on its destination, size, "
                       "count or switch");
    }
  }
  const uint32_t up = ups_.acquire(Up{it->second, up_rx, up_tag});
  bytes_in_.inc(r.bytes.count());
  send_(src, via, common::PathSegment::kToSwitch, r.bytes, this, up);
}

void SwitchReductions::delivered(uint64_t tag) {
  if ((tag & kDownBit) != 0) {
    const auto s = static_cast<uint32_t>(tag & ~kDownBit);
    const Reduction red = reductions_live_[s];
    reductions_live_.release(s);
    trace(red);
    if (red.r.rx != nullptr) red.r.rx->delivered(red.r.tag);
    return;
  }
  copy_in(static_cast<uint32_t>(tag));
}

// One copy is in the switch; the last one of its reduction starts the reduction at the
// destination port's reducer, now or when the reducer frees.
void SwitchReductions::copy_in(uint32_t up) {
  const Up u = ups_[up];
  ups_.release(up);
  contributions_.inc();
  Reduction& red = reductions_live_[u.reduction];
  const bool last = ++red.arrived == red.r.contributions;
  if (last) open_.erase(Key{red.r.rx, red.r.tag});
  if (u.rx != nullptr) u.rx->delivered(u.tag);  // may open or feed other reductions
  if (!last) return;
  Reduction& done = reductions_live_[u.reduction];
  const int from = done.r.down_from >= 0 ? done.r.down_from : other_gpu(done.r.dst);
  const bool via_switch =
      from != done.r.dst && routes_.hops(from, done.r.dst) == 2 &&
      topo_.edges[routes_.next_edge(static_cast<uint32_t>(from), done.r.dst)].to == done.node;
  const uint32_t port = via_switch ? routes_.next_edge(done.node, done.r.dst) : 0;
  if (!via_switch) {
    throw ModelError(path(), "the reduced copy for GPU " + std::to_string(done.r.dst) +
                                 " would leave another switch than its copies reached");
  }
  const Bandwidth rate = topo_.nodes[done.node].reduce_bandwidth;
  if (rate >= topo_.edges[port].bandwidth) {  // the port drains no faster than its reducer
    reduce(u.reduction);
    return;
  }
  const Tick start = std::max(now(), reducer_free_[port]);
  reducer_free_[port] = start + transfer_time(done.r.bytes, rate);
  if (start > now()) {
    reducer_waits_.inc();
    sim().call_at<SwitchReductions, &SwitchReductions::reduce>(start, this, u.reduction);
    return;
  }
  reduce(u.reduction);
}

void SwitchReductions::reduce(uint64_t reduction) {
  const auto s = static_cast<uint32_t>(reduction);
  const common::SwitchReduction& r = reductions_live_[s].r;
  const int from = r.down_from >= 0 ? r.down_from : other_gpu(r.dst);
  reductions_.inc();
  bytes_out_.inc(r.bytes.count());
  send_(from, r.dst, common::PathSegment::kFromSwitch, r.bytes, this, kDownBit | s);
}

void SwitchReductions::trace(const Reduction& red) const {
  Timeline* tl = sim().timeline();
  if (tl == nullptr) return;
  tl->async(
      tl->track(Timeline::kFabricPid, topo_.nodes[red.node].name + " reductions"),
      "reduce x" + std::to_string(red.r.contributions) + " -> GPU " + std::to_string(red.r.dst),
      red.opened, now());
}

void SwitchReductions::finish() {
  if (!open_.empty() || reductions_live_.live() != 0) {
    throw ModelError(path(), std::to_string(open_.size()) +
                                 " in-switch reduction(s) still wait for copies, " +
                                 std::to_string(reductions_live_.live()) + " unfinished");
  }
  if (bytes_in_.value() != 0 && reductions_.value() == 0) {
    throw ModelError(path(), "copies reached the switches but nothing was reduced");
  }
}

}  // namespace t3sim::fabric
