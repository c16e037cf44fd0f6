#include "models/fabric/routing.h"

#include <algorithm>
#include <limits>

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

}  // namespace

RouteTable::RouteTable(const Topology& topo)
    : topo_(&topo),
      n_(topo.num_gpus),
      direct_(topo.kind == "fully_connected" &&
              topo.edges.size() == static_cast<size_t>(topo.num_gpus) * (topo.num_gpus - 1)) {
  if (direct_) return;  // every pair has its own edge: the only one-hop route
  out_.resize(topo.nodes.size());
  in_.resize(topo.nodes.size());
  for (uint32_t e = 0; e < topo.edges.size(); ++e) {
    if (!topo.edges[e].routable) continue;
    out_[topo.edges[e].from].push_back(e);
    in_[topo.edges[e].to].push_back(e);
  }
  for (auto& list : out_) {
    std::stable_sort(list.begin(), list.end(),
                     [&](uint32_t a, uint32_t b) { return topo.edges[a].to < topo.edges[b].to; });
  }
  next_.assign(static_cast<size_t>(n_) * topo.nodes.size(), kUnreached);
  for (int d = 0; d < n_; ++d) fill_next_hops(static_cast<uint32_t>(d));
  in_.clear();
  in_.shrink_to_fit();
  out_.clear();
  out_.shrink_to_fit();
}

void RouteTable::fill_next_hops(uint32_t d) {
  const Topology& topo = *topo_;
  const std::vector<uint32_t> dist = distances_to(d);
  for (int s = 0; s < n_; ++s) {
    if (dist[static_cast<size_t>(s)] == kUnreached) {
      throw ModelError("fabric", "no route from gpu" + std::to_string(s) + " to gpu" +
                                     std::to_string(d) + " in topology '" + topo.kind + "'");
    }
  }
  uint32_t* next = next_.data() + static_cast<size_t>(d) * topo.nodes.size();
  for (uint32_t u = 0; u < topo.nodes.size(); ++u) {
    if (u == d || dist[u] == kUnreached) continue;
    // out_ is ordered by neighbour id, so the first edge one hop closer is the tie-break winner,
    // unless the topology spreads destinations over the candidates at IB switches.
    const auto closer = [&](uint32_t e) { return dist[topo.edges[e].to] + 1 == dist[u]; };
    const auto it = std::find_if(out_[u].begin(), out_[u].end(), closer);
    next[u] = *it;
    if (topo.spread_block > 0 && topo.nodes[u].kind == NodeKind::kIbSwitch) {
      const auto count = static_cast<uint32_t>(std::count_if(it, out_[u].end(), closer));
      uint32_t pick = (d / static_cast<uint32_t>(topo.spread_block)) % count;
      for (auto c = it; c != out_[u].end(); ++c) {
        if (closer(*c) && pick-- == 0) {
          next[u] = *c;
          break;
        }
      }
    }
  }
}

uint32_t RouteTable::next_edge(uint32_t at, int dst) const {
  if (direct_) return direct_edge(n_, static_cast<int>(at), dst);
  return next_[static_cast<size_t>(dst) * topo_->nodes.size() + at];
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
  int h = 0;
  for (auto u = static_cast<uint32_t>(src); u != static_cast<uint32_t>(dst); ++h) {
    u = topo_->edges[next_edge(u, dst)].to;
  }
  return h;
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

std::vector<uint32_t> RouteTable::distances_to(uint32_t dst) const {
  const Topology& topo = *topo_;
  std::vector<uint32_t> dist(topo.nodes.size(), kUnreached);
  std::vector<uint32_t> frontier{dst};
  dist[dst] = 0;
  for (size_t i = 0; i < frontier.size(); ++i) {
    const uint32_t v = frontier[i];
    for (uint32_t e : in_[v]) {
      const uint32_t u = topo.edges[e].from;
      if (dist[u] != kUnreached) continue;
      dist[u] = dist[v] + 1;
      frontier.push_back(u);
    }
  }
  return dist;
}

}  // namespace t3sim::fabric
