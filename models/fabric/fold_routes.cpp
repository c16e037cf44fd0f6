// Fabric::fold_problem: whether a rotation-symmetric schedule's traffic looks the same from every
// GPU. A fabric whose kind maps links onto links under its rotations (Symmetry::kRotation,
// kNodesByRails) passes at once. Otherwise (leaf-spine; whole-node rotations are refused there)
// the pairs are GPU 0's (0, d) and their rotations (g, g + d) for every GPU g, and every pair's
// route is compared with its rotation onto GPU 0's: the same number of hops with the same
// bandwidth, latency and credits, on every hop the same set of pairs sharing the link, rotated;
// and GPU 0's routes carry no other GPU's pairs. Then GPU 0's links carry in a folded run exactly
// what they carry in the full run, and every GPU's traffic meets the same links and neighbours.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/fabric/builders.h"
#include "models/fabric/fabric.h"

namespace t3sim::fabric {
namespace {

std::string pair_name(int src, int dst) {
  return "gpu" + std::to_string(src) + " -> gpu" + std::to_string(dst);
}

bool same_link(const TopoEdge& a, const TopoEdge& b) {
  return a.bandwidth == b.bandwidth && a.latency == b.latency && a.credits == b.credits;
}

}  // namespace

std::string Fabric::fold_problem(const std::vector<int>& gpu0_dsts,
                                 const common::GpuRotation& rot) const {
  const TopologyKind* k = find_topology(topo_.kind);
  if (k == nullptr || k->symmetry == Symmetry::kNone) return "the fabric has no symmetry";
  if (k->symmetry != Symmetry::kNodesByRailsRouted) return {};
  if (rot.whole_nodes) return "whole-node folding is not route-checked on leaf-spine fabrics";
  if (rot.size() != topo_.num_gpus) return "the rotation does not cover the fabric's GPUs";
  std::vector<int> dsts;
  for (const int d : gpu0_dsts) {
    if (d != 0) dsts.push_back(d);
  }
  std::sort(dsts.begin(), dsts.end());
  dsts.erase(std::unique(dsts.begin(), dsts.end()), dsts.end());
  // Pair g x D + j is GPU g's rotation of (0, dsts[j]); rotating it by h gives GPU g + h's.
  const auto num = static_cast<uint32_t>(dsts.size());
  const auto src = [&](uint32_t p) { return static_cast<int>(p / num); };
  const auto dst = [&](uint32_t p) { return rot.add(dsts[p % num], src(p)); };
  const auto rotated = [&](uint32_t p, int by) {
    return static_cast<uint32_t>(rot.add(src(p), by)) * num + p % num;
  };
  const uint32_t pairs = static_cast<uint32_t>(topo_.num_gpus) * num;
  std::vector<std::vector<uint32_t>> route(pairs);
  std::unordered_map<uint32_t, std::vector<uint32_t>> on_edge;  // edge -> pairs routed over it
  for (uint32_t p = 0; p < pairs; ++p) {
    route[p] = routes_.path(src(p), dst(p));
    for (const uint32_t e : route[p]) on_edge[e].push_back(p);
  }
  for (uint32_t p = num; p < pairs; ++p) {
    const int back = rot.neg(src(p));
    const auto& r = route[p];
    const auto& r0 = route[p % num];
    if (r.size() != r0.size()) {
      return pair_name(src(p), dst(p)) + " takes " + std::to_string(r.size()) +
             " hops, its rotation onto gpu0 " + std::to_string(r0.size());
    }
    for (size_t h = 0; h < r.size(); ++h) {
      if (!same_link(topo_.edges[r[h]], topo_.edges[r0[h]])) {
        return pair_name(src(p), dst(p)) + " hop " + std::to_string(h) +
               " differs in bandwidth, latency or credits from its rotation onto gpu0";
      }
      const auto& sharing = on_edge.at(r[h]);
      const auto& sharing0 = on_edge.at(r0[h]);
      for (const uint32_t q : sharing0) {  // a folded run only sends gpu0's pairs
        if (q >= num) return pair_name(src(q), dst(q)) + " shares a link with gpu0's traffic";
      }
      bool same = sharing.size() == sharing0.size();
      for (size_t q = 0; same && q < sharing.size(); ++q) {
        same = std::find(sharing0.begin(), sharing0.end(), rotated(sharing[q], back)) !=
               sharing0.end();
      }
      if (!same) {
        return pair_name(src(p), dst(p)) + " shares hop " + std::to_string(h) + " with " +
               std::to_string(sharing.size()) + " pairs, unlike its rotation onto gpu0 (" +
               std::to_string(sharing0.size()) + ")";
      }
    }
  }
  return {};
}

}  // namespace t3sim::fabric
