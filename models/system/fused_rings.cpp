#include "models/system/fused_rings.h"

#include "models/collectives/channel_plan.h"

namespace t3sim::system {
namespace {

// One ring in GPU order: backward sends g -> g-1 (position i is GPU i), forward g -> g+1.
std::vector<int> id_ring(int n, bool forward) {
  std::vector<int> r;
  for (int i = 0; i < n; ++i) r.push_back(forward ? (n - i) % n : i);
  return r;
}

bool one_node(const System& sys) {
  const collectives::LibraryConfig& lib = sys.collectives();
  for (int g = 0; g < sys.num_gpus(); ++g) {
    if (lib.node_of(g) != lib.node_of(0)) return false;
  }
  return true;
}

bool full_mesh(System& sys) {
  for (int a = 0; a < sys.num_gpus(); ++a) {
    for (int b = 0; b < sys.num_gpus(); ++b) {
      if (a != b && sys.fabric().hops(a, b) != 1) return false;
    }
  }
  return true;
}

}  // namespace

FusedRoute fused_route(System& sys, bool ring_mode) {
  const int n = sys.num_gpus();
  const t3::RsRings how = sys.t3().rs_rings;
  FusedRoute out{false, {id_ring(n, how == t3::RsRings::kForward)}, {1}};
  const bool plan = how == t3::RsRings::kRings || how == t3::RsRings::kPlanned;
  if (!ring_mode || !plan || n < 3 || !one_node(sys)) return out;
  if (how == t3::RsRings::kPlanned && full_mesh(sys)) {
    out.direct = true;
    return out;
  }
  const collectives::RankPath path = [&sys](int a, int b) { return sys.fabric().path_links(a, b); };
  const collectives::ChannelPlan found =
      collectives::plan_rings(n, path, sys.collectives().channels);
  if (!found.searched || found.rings.size() < 2) return out;
  out = {};
  for (size_t r = 0; r < found.rings.size(); ++r) {
    // The planner's ring sends the rank at position p to p+1; t3's position i sends to i-1.
    const collectives::RingOrder& order = found.rings[r];
    std::vector<int> ring;
    for (size_t i = 0; i < order.size(); ++i) {
      ring.push_back(order[(order.size() - i) % order.size()]);
    }
    out.rings.push_back(std::move(ring));
    out.weights.push_back(found.weight[r]);
  }
  return out;
}

}  // namespace t3sim::system
