// Fabric::fold_problem: whether a rotation-symmetric schedule's traffic looks the same from every
// GPU. A fabric whose kind maps links onto links under its rotations (Symmetry::kRotation,
// kNodesByRails) passes at once. Otherwise (leaf-spine) the pairs are the representatives' (r, d)
// and their rotations (r + h, d + h) by every rotation h (mirror.h), and every pair's route is
// compared with its rotation onto its representative's: the same number of hops with the same
// bandwidth, latency and credits, on every hop the same set of pairs sharing the link, rotated;
// and the representatives' routes carry no other pairs. Then their links carry in a folded run
// exactly what they carry in the full run, and every GPU's traffic meets the same neighbours.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
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

std::string Fabric::fold_problem(const std::vector<std::pair<int, int>>& rep_pairs,
                                 const common::GpuRotation& rot) const {
  const TopologyKind* k = find_topology(topo_.kind);
  if (k == nullptr || k->symmetry == Symmetry::kNone) return "the fabric has no symmetry";
  if (k->symmetry != Symmetry::kNodesByRailsRouted) return {};
  if (rot.size() != topo_.num_gpus) return "the rotation does not cover the fabric's GPUs";
  std::vector<std::pair<int, int>> base;
  for (const auto& [s, d] : rep_pairs) {
    if (s < 0 || s >= rot.reps()) return pair_name(s, d) + " is not sent by a representative";
    if (s != d) base.emplace_back(s, d);
  }
  std::sort(base.begin(), base.end());
  base.erase(std::unique(base.begin(), base.end()), base.end());
  // Pair n x B + j is base[j] shifted by the n-th rotation (g = n, or node n under whole-node
  // rotations); rotating it by h gives the pair shifted by that rotation plus h.
  const auto num = static_cast<uint32_t>(base.size());
  const int shifts = rot.whole_nodes ? rot.nodes : rot.size();
  const auto shift = [&](uint32_t p) {
    const auto n = static_cast<int>(p / num);
    return rot.whole_nodes ? n * rot.per_node : n;
  };
  const auto src = [&](uint32_t p) { return rot.add(base[p % num].first, shift(p)); };
  const auto dst = [&](uint32_t p) { return rot.add(base[p % num].second, shift(p)); };
  const auto rotated = [&](uint32_t p, int by) {
    const int v = rot.add(shift(p), by);
    return static_cast<uint32_t>(rot.whole_nodes ? v / rot.per_node : v) * num + p % num;
  };
  const auto rep_name = [&](uint32_t p) { return "gpu" + std::to_string(src(p % num)); };
  const uint32_t pairs = static_cast<uint32_t>(shifts) * num;
  std::vector<std::vector<uint32_t>> route(pairs);
  std::unordered_map<uint32_t, std::vector<uint32_t>> on_edge;  // edge -> pairs routed over it
  for (uint32_t p = 0; p < pairs; ++p) {
    route[p] = routes_.path(src(p), dst(p));
    for (const uint32_t e : route[p]) on_edge[e].push_back(p);
  }
  for (uint32_t p = num; p < pairs; ++p) {
    const int back = rot.neg(shift(p));
    const auto& r = route[p];
    const auto& r0 = route[p % num];
    if (r.size() != r0.size()) {
      return pair_name(src(p), dst(p)) + " takes " + std::to_string(r.size()) +
             " hops, its rotation onto " + rep_name(p) + " " + std::to_string(r0.size());
    }
    for (size_t h = 0; h < r.size(); ++h) {
      if (!same_link(topo_.edges[r[h]], topo_.edges[r0[h]])) {
        return pair_name(src(p), dst(p)) + " hop " + std::to_string(h) +
               " differs in bandwidth, latency or credits from its rotation onto " + rep_name(p);
      }
      const auto& sharing = on_edge.at(r[h]);
      const auto& sharing0 = on_edge.at(r0[h]);
      for (const uint32_t q : sharing0) {  // a folded run only sends the representatives' pairs
        if (q >= num) {
          return pair_name(src(q), dst(q)) + " shares a link with " +
                 (rot.reps() == 1 ? "gpu0's" : "the representatives'") + " traffic";
        }
      }
      bool same = sharing.size() == sharing0.size();
      for (size_t q = 0; same && q < sharing.size(); ++q) {
        same = std::find(sharing0.begin(), sharing0.end(), rotated(sharing[q], back)) !=
               sharing0.end();
      }
      if (!same) {
        return pair_name(src(p), dst(p)) + " shares hop " + std::to_string(h) + " with " +
               std::to_string(sharing.size()) + " pairs, unlike its rotation onto " + rep_name(p) +
               " (" + std::to_string(sharing0.size()) + ")";
      }
    }
  }
  return {};
}

}  // namespace t3sim::fabric
