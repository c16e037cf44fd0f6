// Collective's `auto`: what the tuner knows about the group (tuner.h's TunerGroup, read off the
// fabric and the channel plan) and the choice itself; a library without a "tuner" object keeps
// the size thresholds (ll_max, ll128_max, nvls_min, tree_max).
#include <algorithm>
#include <set>

#include "models/collectives/collective.h"
#include "models/collectives/kinds.h"

namespace t3sim::collectives {
namespace {

constexpr uint64_t kChoicePpm = 1'000'000;

}  // namespace

TunerGroup Collective::tuner_group(bool multi_node) const {
  const auto& fab = *machine_.fabric;
  const uint32_t eff = lib_.protocols[proto_index(Protocol::kSimple)].link_ppm;
  const auto wire = [eff](Bandwidth b) { return b.scaled(eff, kChoicePpm); };
  TunerGroup g;
  g.ranks = static_cast<int>(group_.size());
  g.channels = channels_;
  g.ll128 = !multi_node;
  if (group_.size() < 2) return g;
  const int first = group_[0];
  // The first peer of `first` in its own node, and one in another node (-1: none).
  int local = -1;
  int remote = -1;
  std::set<int> nodes;
  for (const int gpu : group_) {
    nodes.insert(lib_.node_of(gpu));
    if (gpu == first) continue;
    if (lib_.node_of(gpu) == lib_.node_of(first)) {
      if (local < 0) local = gpu;
    } else if (remote < 0) {
      remote = gpu;
    }
  }
  g.nodes = static_cast<int>(nodes.size());
  if (local >= 0) g.ring_bus = wire(fab.path_bandwidth(first, local));
  if (!multi_node) {
    if (planned_rings()) {
      const ChannelPlan p = plan();
      if (p.searched) g.ring_bus = wire(p.speed * p.found());
    }
    if (lib_.nvls_channels > 0 && group_.size() > lib_.nvls_min_ranks && one_switch() &&
        fab.has_switch_segments()) {
      g.nvls_bus = wire(fab.path_bandwidth(first, group_[1]));
    }
    return g;
  }
  // A ring across nodes on one rail per channel (node_rails.h) is bounded by a GPU's own link or
  // by the node's NICs together, as NCCL's tuner counts nics x NIC bandwidth; a ring that keeps
  // the group's order, by its slowest hop.
  const NodeRails r = rails();
  if (rail_rings_apply()) {
    const Bandwidth own = local >= 0 ? fab.path_bandwidth(first, local) : r.bandwidth;
    g.cross_ring = wire(std::min(own, r.bandwidth));
  } else {
    Bandwidth slowest = fab.path_bandwidth(group_.back(), first);
    for (size_t i = 0; i + 1 < group_.size(); ++i) {
      slowest = std::min(slowest, fab.path_bandwidth(group_[i], group_[i + 1]));
    }
    g.cross_ring = wire(slowest);
  }
  if (r.nics > 0) {
    g.node_net = wire(r.bandwidth);  // the node's NICs
  } else if (remote >= 0) {
    const uint64_t per_node = group_.size() / nodes.size();
    g.node_net = wire(fab.path_bandwidth(first, remote)) * per_node;
  }
  return g;
}

void Collective::resolve_auto(bool multi_node) {
  if (algo_ == Algo::kNvls) {  // NVLS runs Simple only (checked by resolve())
    if (proto_ == Protocol::kAuto) proto_ = Protocol::kSimple;
    return;
  }
  if (algo_ != Algo::kAuto && proto_ != Protocol::kAuto) return;
  if (!lib_.tuner || group_.size() < 2) {
    resolve_by_thresholds(multi_node);
    return;
  }
  const Estimate e = choose(*lib_.tuner, tuner_group(multi_node), kind_, bytes_, algo_, proto_,
                            kind_spec(kind_).preferred);
  algo_ = e.algo;
  proto_ = e.proto;
}

void Collective::resolve_by_thresholds(bool multi_node) {
  const auto m = static_cast<uint64_t>(group_.size());
  if (algo_ == Algo::kAuto) {
    algo_ = kind_spec(kind_).preferred;
    if (multi_node && kind_ == Kind::kAllReduce) {  // NCCL runs Tree across nodes (tree_max)
      algo_ = bytes_ <= lib_.tree_max.count() ? Algo::kTree : Algo::kHierarchical;
    }
    // NCCL's choice on NVLink SHARP systems (hardware.md §5.1): NVLS for large all-reduces within
    // one NVSwitch node of more than nvls_min_ranks GPUs.
    if (lib_.nvls_channels > 0 && !multi_node && kind_ == Kind::kAllReduce &&
        bytes_ >= lib_.nvls_min.count() && m > lib_.nvls_min_ranks && one_switch() &&
        machine_.fabric->has_switch_segments()) {
      algo_ = Algo::kNvls;
    }
  }
  proto_ = lib_.select(proto_, bytes_, multi_node);
}

}  // namespace t3sim::collectives
