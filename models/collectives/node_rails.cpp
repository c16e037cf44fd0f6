#include "models/collectives/node_rails.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

namespace t3sim::collectives {
namespace {

// Ranks per node when the group is whole nodes of equal size in node-major order (0 otherwise).
int ranks_per_node(const std::vector<int>& node_of_rank) {
  const auto n = static_cast<int>(node_of_rank.size());
  int local = 0;
  while (local < n && node_of_rank[static_cast<size_t>(local)] == node_of_rank[0]) ++local;
  if (local == 0 || n % local != 0) return 0;
  std::set<int> seen;
  for (int first = 0; first < n; first += local) {
    const int node = node_of_rank[static_cast<size_t>(first)];
    if (!seen.insert(node).second) return 0;  // a node's ranks are not contiguous
    for (int k = 0; k < local; ++k) {
      if (node_of_rank[static_cast<size_t>(first + k)] != node) return 0;
    }
  }
  return local;
}

}  // namespace

NodeRails find_rails(const std::vector<int>& node_of_rank, const RankPath& path) {
  NodeRails r;
  const int local = ranks_per_node(node_of_rank);
  const auto n = static_cast<int>(node_of_rank.size());
  if (local == 0 || n / local < 2) return r;
  // Links the first node's own routes use: what is left of a route out of the node is network.
  std::set<uint32_t> inside;
  for (int a = 0; a < local; ++a) {
    for (int b = 0; b < local; ++b) {
      if (a == b) continue;
      for (const common::PathLink& l : path(a, b)) inside.insert(l.id);
    }
  }
  // Rotation s: the first node's last rank (offset s - 1) sends to the next node's first (s).
  // Each crossing route's links outside the node, in order; the narrowest stage (fewest distinct
  // links over the rotations: the NICs' own links where GPUs share a NIC) counts the NICs.
  std::vector<std::vector<common::PathLink>> out(static_cast<size_t>(local));
  size_t stages = SIZE_MAX;
  for (int s = 0; s < local; ++s) {
    for (const common::PathLink& l : path((s + local - 1) % local, local + s)) {
      if (inside.count(l.id) == 0) out[static_cast<size_t>(s)].push_back(l);
    }
    stages = std::min(stages, out[static_cast<size_t>(s)].size());
  }
  if (stages == 0) return r;  // no links exposed, or a route that never leaves the node
  size_t narrowest = 0;
  size_t fewest = SIZE_MAX;
  for (size_t k = 0; k < stages; ++k) {
    std::set<uint32_t> ids;
    for (const auto& o : out) ids.insert(o[k].id);
    if (ids.size() < fewest) {
      fewest = ids.size();
      narrowest = k;
    }
  }
  std::map<uint32_t, Bandwidth> exits;
  for (int s = 0; s < local; ++s) {
    const common::PathLink& l = out[static_cast<size_t>(s)][narrowest];
    if (exits.emplace(l.id, l.bandwidth).second) r.rotations.push_back(s);
  }
  r.nodes = n / local;
  r.local = local;
  r.nics = static_cast<uint32_t>(exits.size());
  uint64_t sum = 0;
  for (const auto& [id, bw] : exits) sum += bw.bytes_per_second();
  r.bandwidth = Bandwidth::bytes_per_s(sum);
  return r;
}

std::vector<RingOrder> rail_rings(const NodeRails& rails, uint32_t channels) {
  std::vector<RingOrder> out;
  if (rails.rotations.empty()) return out;
  for (uint32_t c = 0; c < channels; ++c) {
    const int rot = rails.rotations[c % rails.rotations.size()];
    RingOrder ring;
    for (int m = 0; m < rails.nodes; ++m) {
      for (int k = 0; k < rails.local; ++k)
        ring.push_back(m * rails.local + (rot + k) % rails.local);
    }
    std::rotate(ring.begin(), std::find(ring.begin(), ring.end(), 0), ring.end());
    out.push_back(std::move(ring));
  }
  return out;
}

}  // namespace t3sim::collectives
