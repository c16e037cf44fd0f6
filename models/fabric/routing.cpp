#include "models/fabric/routing.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <utility>

#include "sim/errors.h"

namespace t3sim::fabric {
namespace {

constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();

// Edge i -> j of a fully connected build (builders.cpp): pairs (a < b) in row order, a -> b first.
uint32_t direct_edge(int n, int i, int j) {
  const int a = std::min(i, j);
  const int b = std::max(i, j);
  const uint64_t pair = static_cast<uint64_t>(a) * (2 * static_cast<uint64_t>(n) - a - 1) / 2 +
                        static_cast<uint64_t>(b - a - 1);
  return static_cast<uint32_t>(2 * pair + (i < j ? 0 : 1));
}

// Compressed adjacency: for each node its routable edges (ends chosen by `end`), in edge-id order.
template <typename End>
void build_adjacency(const Topology& topo, End end, std::vector<uint32_t>& at,
                     std::vector<uint32_t>& list) {
  at.assign(topo.nodes.size() + 1, 0);
  for (const TopoEdge& e : topo.edges) at[end(e) + 1] += e.routable ? 1 : 0;
  for (size_t u = 0; u < topo.nodes.size(); ++u) at[u + 1] += at[u];
  list.resize(at.back());
  std::vector<uint32_t> fill(at.begin(), at.end() - 1);
  for (uint32_t e = 0; e < topo.edges.size(); ++e) {
    if (topo.edges[e].routable) list[fill[end(topo.edges[e])]++] = e;
  }
}

}  // namespace

RouteTable::RouteTable(const Topology& topo)
    : topo_(&topo),
      n_(topo.num_gpus),
      direct_(topo.kind == "fully_connected" &&
              topo.edges.size() == static_cast<size_t>(topo.num_gpus) * (topo.num_gpus - 1)) {
  if (direct_) return;  // every pair has its own edge: the only one-hop route
  weighted_ = std::any_of(topo.edges.begin(), topo.edges.end(),
                          [](const TopoEdge& e) { return e.routable && e.cost != 1; });
  build_adjacency(
      topo, [](const TopoEdge& e) { return e.from; }, out_at_, out_);
  build_adjacency(
      topo, [](const TopoEdge& e) { return e.to; }, in_at_, in_);
  for (size_t u = 0; u + 1 < out_at_.size(); ++u) {
    std::stable_sort(out_.begin() + out_at_[u], out_.begin() + out_at_[u + 1],
                     [&](uint32_t a, uint32_t b) { return topo.edges[a].to < topo.edges[b].to; });
  }
  to_.resize(static_cast<size_t>(n_));
  from_.resize(static_cast<size_t>(n_));
  check_reachable();
}

// Every GPU reaches every GPU iff GPU 0 reaches all and all reach GPU 0 (s -> 0 -> d). If not,
// the per-destination searches name the first unreachable (destination, source) pair.
void RouteTable::check_reachable() const {
  const Topology& topo = *topo_;
  const auto reaches_all = [&](const std::vector<uint32_t>& at, const std::vector<uint32_t>& list,
                               bool forward) {
    std::vector<char> seen(topo.nodes.size(), 0);
    std::vector<uint32_t> frontier{0};
    seen[0] = 1;
    for (size_t i = 0; i < frontier.size(); ++i) {
      const uint32_t v = frontier[i];
      for (uint32_t k = at[v]; k < at[v + 1]; ++k) {
        const uint32_t u = forward ? topo.edges[list[k]].to : topo.edges[list[k]].from;
        if (seen[u] == 0) {
          seen[u] = 1;
          frontier.push_back(u);
        }
      }
    }
    return std::all_of(seen.begin(), seen.begin() + n_, [](char s) { return s != 0; });
  };
  if (n_ == 0 || (reaches_all(out_at_, out_, true) && reaches_all(in_at_, in_, false))) return;
  for (int d = 0; d < n_; ++d) {
    const std::vector<uint32_t> dist = distances(static_cast<uint32_t>(d), true);
    for (int s = 0; s < n_; ++s) {
      if (dist[static_cast<size_t>(s)] == kUnreached) {
        throw ModelError("fabric", "no route from gpu" + std::to_string(s) + " to gpu" +
                                       std::to_string(d) + " in topology '" + topo.kind + "'");
      }
    }
  }
}

const RouteTable::Dist* RouteTable::cached(int gpu, bool to) const {
  auto& col = (to ? to_ : from_)[static_cast<size_t>(gpu)];
  if (col) return col.get();
  const std::vector<uint32_t> dist = distances(static_cast<uint32_t>(gpu), to);
  col = std::make_unique<Dist[]>(dist.size());
  for (size_t u = 0; u < dist.size(); ++u) {
    if (dist[u] != kUnreached && dist[u] >= std::numeric_limits<Dist>::max()) {
      throw ModelError("fabric",
                       "route to or from gpu" + std::to_string(gpu) + " longer than 65534 hops");
    }
    col[u] = dist[u] == kUnreached ? std::numeric_limits<Dist>::max() : static_cast<Dist>(dist[u]);
  }
  ++(to ? cached_to_ : cached_from_);
  return col.get();
}

uint32_t RouteTable::next_edge(uint32_t at, int dst) const {
  if (direct_) return direct_edge(n_, static_cast<int>(at), dst);
  const Topology& topo = *topo_;
  const Dist* dist = dist_to(dst);
  // out_ is ordered by neighbour id, so the first edge one hop closer is the tie-break winner,
  // unless the topology spreads destinations over the candidates at IB switches.
  const auto closer = [&](uint32_t e) {
    const TopoEdge& edge = topo.edges[e];
    return dist[edge.to] + edge.cost == dist[at];
  };
  const auto begin = out_.begin() + out_at_[at];
  const auto end = out_.begin() + out_at_[at + 1];
  const auto it = std::find_if(begin, end, closer);
  if (it == end) {
    throw ModelError("fabric", "no route from node " + topo.nodes[at].name + " to gpu" +
                                   std::to_string(dst) + " in topology '" + topo.kind + "'");
  }
  if (topo.spread_block > 0 && topo.nodes[at].kind == NodeKind::kIbSwitch) {
    const auto count = static_cast<uint32_t>(std::count_if(it, end, closer));
    uint32_t pick = topo.spread_key(dst) % count;
    for (auto c = it; c != end; ++c) {
      if (closer(*c) && pick-- == 0) return *c;
    }
  }
  return *it;
}

std::vector<uint32_t> RouteTable::path(int src, int dst) const {
  std::vector<uint32_t> out;
  for (auto u = static_cast<uint32_t>(src); u != static_cast<uint32_t>(dst);) {
    const uint32_t e = next_edge(u, dst);
    out.push_back(e);
    u = topo_->edges[e].to;
  }
  return out;
}

int RouteTable::hops(int src, int dst) const {
  if (src == dst) return 0;
  if (direct_) return 1;
  if (weighted_) return static_cast<int>(path(src, dst).size());  // distances are costs
  return cached(src, false)[dst];                                 // the path is a shortest one
}

Bandwidth RouteTable::bandwidth(int src, int dst) const {
  Bandwidth bw = Bandwidth::bytes_per_s(std::numeric_limits<uint64_t>::max());
  for (auto u = static_cast<uint32_t>(src); u != static_cast<uint32_t>(dst);) {
    const TopoEdge& e = topo_->edges[next_edge(u, dst)];
    bw = std::min(bw, e.bandwidth);
    u = e.to;
  }
  return bw;
}

Duration RouteTable::latency(int src, int dst) const {
  Duration sum;
  for (auto u = static_cast<uint32_t>(src); u != static_cast<uint32_t>(dst);) {
    const TopoEdge& e = topo_->edges[next_edge(u, dst)];
    sum += e.latency;
    u = e.to;
  }
  return sum;
}

std::vector<uint32_t> RouteTable::distances(uint32_t gpu, bool to) const {
  const Topology& topo = *topo_;
  const std::vector<uint32_t>& at = to ? in_at_ : out_at_;
  const std::vector<uint32_t>& list = to ? in_ : out_;
  std::vector<uint32_t> dist(topo.nodes.size(), kUnreached);
  dist[gpu] = 0;
  if (weighted_) {                                // Dijkstra: costs differ
    using Entry = std::pair<uint32_t, uint32_t>;  // (distance, node)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
    open.emplace(0, gpu);
    while (!open.empty()) {
      const auto [d, v] = open.top();
      open.pop();
      if (d != dist[v]) continue;  // a shorter entry came first
      for (uint32_t k = at[v]; k < at[v + 1]; ++k) {
        const TopoEdge& e = topo.edges[list[k]];
        const uint32_t u = to ? e.from : e.to;
        if (d + e.cost >= dist[u]) continue;
        dist[u] = d + e.cost;
        open.emplace(dist[u], u);
      }
    }
    return dist;
  }
  std::vector<uint32_t> frontier{gpu};  // breadth-first: every edge costs 1
  for (size_t i = 0; i < frontier.size(); ++i) {
    const uint32_t v = frontier[i];
    for (uint32_t k = at[v]; k < at[v + 1]; ++k) {
      const TopoEdge& e = topo.edges[list[k]];
      const uint32_t u = to ? e.from : e.to;
      if (dist[u] != kUnreached) continue;
      dist[u] = dist[v] + 1;
      frontier.push_back(u);
    }
  }
  return dist;
}

}  // namespace t3sim::fabric
