// Static shortest-path routing, computed once at build time: a breadth-first search from every
// destination GPU over the routable edges, then each source walks towards the destination, taking
// at every node the out-edge to the lowest-id neighbour that is one hop closer (lowest edge id
// among parallel edges; leaf_spine spreads ties at IB switches by destination node, see
// Topology::spread_block). Storage is compact: one next-hop edge per (destination GPU, node), so
// memory is num_gpus x num_nodes words, never num_gpus^2 x path length; a fully connected fabric
// (one direct edge per pair, found from its build order) stores nothing per pair. A path is
// walked on demand. Contract: one path per (src, dst) pair (hence per-pair FIFO delivery),
// identical on every run; path(g, g) is empty; construction throws ModelError if a pair is
// unreachable.
#pragma once

#include <cstdint>
#include <vector>

#include "models/fabric/topology.h"
#include "sim/units.h"

namespace t3sim::fabric {

class RouteTable {
 public:
  // ModelError if some GPU pair has no route.
  explicit RouteTable(const Topology& topo);

  int num_gpus() const { return n_; }
  uint32_t flow(int src, int dst) const { return static_cast<uint32_t>(src * n_ + dst); }
  uint32_t num_flows() const { return static_cast<uint32_t>(n_ * n_); }
  // First edge from node `at` towards GPU dst (at != dst).
  uint32_t next_edge(uint32_t at, int dst) const;
  // Edge ids from src to dst, in order.
  std::vector<uint32_t> path(int src, int dst) const;
  int hops(int src, int dst) const;
  // Narrowest edge on the path (unbounded for src == dst) and sum of edge latencies.
  Bandwidth bandwidth(int src, int dst) const;
  Duration latency(int src, int dst) const;

 private:
  std::vector<uint32_t> distances_to(uint32_t dst) const;
  void fill_next_hops(uint32_t dst);

  const Topology* topo_;
  int n_ = 0;
  bool direct_ = false;         // fully connected: next_edge is computed, next_ is empty
  std::vector<uint32_t> next_;  // [dst * num_nodes + node]: first edge towards dst
  std::vector<std::vector<uint32_t>> out_;  // routable out-edges per node, by (to, id)
  std::vector<std::vector<uint32_t>> in_;   // routable in-edges per node
};

}  // namespace t3sim::fabric
