// Static shortest-path routing: at every node a path towards destination GPU d takes the out-edge
// to the lowest-id neighbour one hop closer to d (closer by the edge's cost where edges cost more
// than one hop, TopoEdge::cost: then distances come from Dijkstra and hops() counts the path)
// (lowest edge id among parallel edges; leaf_spine spreads ties at IB switches by destination node,
// see Topology::spread_block). Construction checks that every GPU reaches every GPU in O(nodes +
// edges) (GPU 0 reaches all and all reach GPU 0); the hop distances to d come from one
// breadth-first search when d is first routed to, and are kept (uint16 per node), so memory follows
// the destinations used: a folded run's few, not num_gpus x num_nodes. Next hops are found from the
// distances on each step. hops(s, d) is the distance from s (one search per source asked, kept
// alike): "every GPU's hops from GPU 0" costs one search, not one per destination. A fully
// connected fabric (one direct edge per pair, found from its build order) stores nothing. Contract:
// one path per (src, dst) pair (hence per-pair FIFO delivery), identical on every run and whatever
// the query order; path(g, g) is empty; construction throws ModelError if a pair is unreachable.
// Queries fill the cache: one RouteTable per thread (each Simulator has its own).
#pragma once

#include <cstdint>
#include <memory>
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
  // Destinations (sources) whose distances to (from) every node are cached: tests, benchmarks.
  size_t cached_destinations() const { return cached_to_; }
  size_t cached_sources() const { return cached_from_; }

 private:
  using Dist = uint16_t;
  void check_reachable() const;
  // Breadth-first hop counts to `gpu` over in-edges (to = true) or from it over out-edges.
  std::vector<uint32_t> distances(uint32_t gpu, bool to) const;
  const Dist* cached(int gpu, bool to) const;
  const Dist* dist_to(int dst) const { return cached(dst, true); }

  const Topology* topo_;
  int n_ = 0;
  bool direct_ = false;    // fully connected: next_edge is computed, nothing is stored
  bool weighted_ = false;  // some edge costs more than one hop: distances are costs
  // Routable out-edges of node u: out_[out_at_[u] .. out_at_[u + 1]), by (to, id); in-edges alike.
  std::vector<uint32_t> out_at_, out_;
  std::vector<uint32_t> in_at_, in_;
  mutable std::vector<std::unique_ptr<Dist[]>> to_;    // per destination GPU, filled on first use
  mutable std::vector<std::unique_ptr<Dist[]>> from_;  // per source GPU (hops), alike
  mutable size_t cached_to_ = 0;
  mutable size_t cached_from_ = 0;
};

}  // namespace t3sim::fabric
