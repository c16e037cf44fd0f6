#include "models/fabric/routing.h"

#include <algorithm>
#include <limits>

#include "sim/errors.h"

namespace t3sim::fabric {
namespace {

constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();

}  // namespace

RouteTable::RouteTable(const Topology& topo)
    : n_(topo.num_gpus), out_(topo.nodes.size()), in_(topo.nodes.size()) {
  for (uint32_t e = 0; e < topo.edges.size(); ++e) {
    if (!topo.edges[e].routable) continue;
    out_[topo.edges[e].from].push_back(e);
    in_[topo.edges[e].to].push_back(e);
  }
  for (auto& list : out_) {
    std::stable_sort(list.begin(), list.end(),
                     [&](uint32_t a, uint32_t b) { return topo.edges[a].to < topo.edges[b].to; });
  }
  begin_.assign(num_flows() + 1, 0);
  bandwidth_.assign(num_flows(), Bandwidth::bytes_per_s(std::numeric_limits<uint64_t>::max()));
  latency_.assign(num_flows(), Duration());
  std::vector<std::vector<uint32_t>> dist(static_cast<size_t>(n_));
  for (int d = 0; d < n_; ++d) dist[d] = distances_to(topo, static_cast<uint32_t>(d));
  for (int s = 0; s < n_; ++s) {
    for (int d = 0; d < n_; ++d) {
      const uint32_t f = flow(s, d);
      begin_[f] = static_cast<uint32_t>(edges_.size());
      const std::vector<uint32_t>& dd = dist[d];
      if (dd[s] == kUnreached) {
        throw ModelError("fabric", "no route from gpu" + std::to_string(s) + " to gpu" +
                                       std::to_string(d) + " in topology '" + topo.kind + "'");
      }
      for (uint32_t u = static_cast<uint32_t>(s); u != static_cast<uint32_t>(d);) {
        // out_ is ordered by neighbour id, so the first edge one hop closer is the tie-break
        // winner.
        const auto it = std::find_if(out_[u].begin(), out_[u].end(),
                                     [&](uint32_t e) { return dd[topo.edges[e].to] + 1 == dd[u]; });
        const TopoEdge& e = topo.edges[*it];
        edges_.push_back(*it);
        bandwidth_[f] = std::min(bandwidth_[f], e.bandwidth);
        latency_[f] += e.latency;
        u = e.to;
      }
    }
  }
  begin_[num_flows()] = static_cast<uint32_t>(edges_.size());
}

std::vector<uint32_t> RouteTable::distances_to(const Topology& topo, uint32_t dst) const {
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
