// Fabric::fold_problem: whether a rotation-symmetric schedule's traffic looks the same from every
// GPU. A fabric whose kind maps links onto links under its rotations (Symmetry::kRotation,
// kNodesByRails) passes at once. Otherwise (leaf-spine) every (src, dst) pair's route is compared
// with the route of the pair rotated onto GPU 0: the same number of hops with the same bandwidth,
// latency and credits, and on every hop the same set of pairs sharing the link, rotated; and GPU
// 0's routes carry no other GPU's pairs. Then GPU 0's links carry in a folded run exactly what
// they carry in the full run, and every GPU's traffic meets the same links and neighbours.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/fabric/builders.h"
#include "models/fabric/fabric.h"

namespace t3sim::fabric {
namespace {

uint64_t pair_key(int src, int dst) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(src)) << 32) | static_cast<uint32_t>(dst);
}

std::string pair_name(int src, int dst) {
  return "gpu" + std::to_string(src) + " -> gpu" + std::to_string(dst);
}

bool same_link(const TopoEdge& a, const TopoEdge& b) {
  return a.bandwidth == b.bandwidth && a.latency == b.latency && a.credits == b.credits;
}

}  // namespace

std::string Fabric::fold_problem(const std::vector<std::pair<int, int>>& pairs,
                                 const common::GpuRotation& rot) const {
  const TopologyKind* k = find_topology(topo_.kind);
  if (k == nullptr || k->symmetry == Symmetry::kNone) return "the fabric has no symmetry";
  if (k->symmetry != Symmetry::kNodesByRailsRouted) return {};
  if (rot.size() != topo_.num_gpus) return "the rotation does not cover the fabric's GPUs";
  std::vector<std::pair<int, int>> ps;
  for (const auto& p : pairs) {
    if (p.first != p.second) ps.push_back(p);
  }
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
  std::unordered_map<uint64_t, uint32_t> index;
  index.reserve(ps.size() * 2);
  for (uint32_t i = 0; i < ps.size(); ++i) index.emplace(pair_key(ps[i].first, ps[i].second), i);
  std::vector<std::vector<uint32_t>> route(ps.size());
  std::unordered_map<uint32_t, std::vector<uint32_t>> on_edge;  // edge -> pairs routed over it
  for (uint32_t i = 0; i < ps.size(); ++i) {
    route[i] = routes_.path(ps[i].first, ps[i].second);
    for (const uint32_t e : route[i]) on_edge[e].push_back(i);
  }
  // Pair i rotated by `by` (GPU ids through rot), if the schedule has it.
  const auto rotated = [&](uint32_t i, int by) -> int64_t {
    const auto it = index.find(pair_key(rot.add(ps[i].first, by), rot.add(ps[i].second, by)));
    return it == index.end() ? -1 : static_cast<int64_t>(it->second);
  };
  for (uint32_t i = 0; i < ps.size(); ++i) {
    const int back = rot.neg(ps[i].first);
    const int64_t j = rotated(i, back);
    if (j < 0) return pair_name(ps[i].first, ps[i].second) + " has no counterpart at gpu0";
    const auto& r = route[i];
    const auto& r0 = route[static_cast<size_t>(j)];
    if (r.size() != r0.size()) {
      return pair_name(ps[i].first, ps[i].second) + " takes " + std::to_string(r.size()) +
             " hops, its rotation onto gpu0 " + std::to_string(r0.size());
    }
    for (size_t h = 0; h < r.size(); ++h) {
      if (!same_link(topo_.edges[r[h]], topo_.edges[r0[h]])) {
        return pair_name(ps[i].first, ps[i].second) + " hop " + std::to_string(h) +
               " differs in bandwidth, latency or credits from its rotation onto gpu0";
      }
      const auto& sharing = on_edge.at(r[h]);
      const auto& sharing0 = on_edge.at(r0[h]);
      for (const uint32_t q : sharing0) {  // a folded run only sends gpu0's pairs
        if (ps[q].first != 0) {
          return pair_name(ps[q].first, ps[q].second) + " shares a link with gpu0's traffic";
        }
      }
      bool same = sharing.size() == sharing0.size();
      for (size_t q = 0; same && q < sharing.size(); ++q) {
        const int64_t m = rotated(sharing[q], back);
        same = m >= 0 && std::find(sharing0.begin(), sharing0.end(), static_cast<uint32_t>(m)) !=
                             sharing0.end();
      }
      if (!same) {
        return pair_name(ps[i].first, ps[i].second) + " shares hop " + std::to_string(h) +
               " with " + std::to_string(sharing.size()) +
               " pairs, unlike its rotation onto gpu0 (" + std::to_string(sharing0.size()) + ")";
      }
    }
  }
  return {};
}

}  // namespace t3sim::fabric
