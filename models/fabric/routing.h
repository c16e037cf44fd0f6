// Static shortest-path routing, computed once at build time: a breadth-first search from every
// destination GPU over the routable edges, then each source walks towards the destination, taking
// at every node the out-edge to the lowest-id neighbour that is one hop closer (lowest edge id
// among parallel edges). Paths are stored flat, indexed by flow = src * num_gpus + dst, so the
// run-time lookup is an array index, never a string or a map. Contract: one path per (src, dst)
// pair (hence per-pair FIFO delivery), identical on every run; path(g, g) is empty; construction
// throws ModelError if a pair is unreachable.
#pragma once

#include <cstdint>
#include <span>
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
  // Edge ids from src to dst, in order.
  std::span<const uint32_t> path(int src, int dst) const { return path(flow(src, dst)); }
  std::span<const uint32_t> path(uint32_t flow) const {
    return {edges_.data() + begin_[flow], begin_[flow + 1] - begin_[flow]};
  }
  // Offset of a flow's first hop in the flat hop array (the FlowTable's slot numbering).
  uint32_t first_hop(uint32_t flow) const { return begin_[flow]; }
  uint32_t total_hops() const { return static_cast<uint32_t>(edges_.size()); }
  int hops(int src, int dst) const { return static_cast<int>(path(src, dst).size()); }
  // Narrowest edge on the path (unbounded for src == dst) and sum of edge latencies.
  Bandwidth bandwidth(int src, int dst) const { return bandwidth_[flow(src, dst)]; }
  Duration latency(int src, int dst) const { return latency_[flow(src, dst)]; }

 private:
  std::vector<uint32_t> distances_to(const Topology& topo, uint32_t dst) const;

  int n_ = 0;
  std::vector<uint32_t> begin_;  // num_flows + 1 offsets into edges_
  std::vector<uint32_t> edges_;
  std::vector<Bandwidth> bandwidth_;
  std::vector<Duration> latency_;
  std::vector<std::vector<uint32_t>> out_;  // routable out-edges per node, by (to, id)
  std::vector<std::vector<uint32_t>> in_;   // routable in-edges per node
};

}  // namespace t3sim::fabric
