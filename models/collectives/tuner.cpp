#include "models/collectives/tuner.h"

#include <algorithm>
#include <bit>

#include "models/collectives/algorithms.h"
#include "sim/errors.h"

namespace t3sim::collectives {
namespace {

constexpr uint64_t kTunerPpm = 1'000'000;

Bandwidth share(Bandwidth b, uint32_t ppm) { return b.scaled(ppm, kTunerPpm); }
Bandwidth cap(Bandwidth b, Bandwidth per_channel, uint32_t channels) {
  return per_channel == Bandwidth() ? b : std::min(b, per_channel * channels);
}

TunerAlgo cells_of(Algo a) {
  return a == Algo::kTree   ? TunerAlgo::kTree
         : a == Algo::kNvls ? TunerAlgo::kNvls
                            : TunerAlgo::kRing;
}

// NCCL's step count of a ring: 2(n-1) for all-reduce, n-1 for the one-pass kinds, n otherwise.
uint64_t ring_steps(Kind k, uint64_t n) {
  if (k == Kind::kAllReduce) return 2 * (n - 1);
  if (k == Kind::kReduceScatter || k == Kind::kAllGather || k == Kind::kAllToAll) return n - 1;
  return n;
}

// Steps of those that cross nodes (the ring enters and leaves each node once per pass).
uint64_t ring_inter_steps(Kind k, uint64_t nodes) {
  if (nodes <= 1) return 0;
  return k == Kind::kAllReduce ? 2 * (nodes - 1) : nodes - 1;
}

struct Cost {
  Duration latency;
  Bandwidth algbw;
};

Cost ring_cost(const TunerConstants& t, const TunerGroup& g, Kind k, size_t p) {
  const TunerCell& c = t.cell(TunerAlgo::kRing, p);
  const auto n = static_cast<uint64_t>(g.ranks);
  const auto nodes = static_cast<uint64_t>(g.nodes);
  const uint64_t steps = ring_steps(k, n);
  const uint64_t inter = ring_inter_steps(k, nodes);
  const Bandwidth graph = share(g.nodes > 1 ? g.cross_ring : g.ring_bus, t.bus_ppm);
  Bandwidth bus = cap(share(graph, c.share_ppm), c.channel_max, g.channels);
  if (p == proto_index(Protocol::kLL)) bus = std::min(bus, t.ll_max);
  const Duration intra = c.hw[static_cast<size_t>(g.intra)];
  const Duration net = c.hw[static_cast<size_t>(Hw::kNet)];
  Duration lat = c.base + intra * (steps - inter) + net * inter;
  if (p == proto_index(Protocol::kSimple) && g.nodes > 1 && k == Kind::kAllReduce) {
    lat = Duration::ps(static_cast<uint64_t>(static_cast<U128>(lat.count_ps()) *
                                             t.ring_multi_node_simple_ppm / kTunerPpm));
  }
  return {lat, bus.scaled(n, steps)};
}

// NCCL's Tree: the Simple cell's share and cap bound every protocol, then LL and LL128 apply
// theirs; half the bus bandwidth is algorithm bandwidth (reduce up, broadcast down).
Cost tree_cost(const TunerConstants& t, const TunerGroup& g, size_t p, uint64_t bytes) {
  const TunerCell& simple = t.cell(TunerAlgo::kTree, proto_index(Protocol::kSimple));
  const TunerCell& c = t.cell(TunerAlgo::kTree, p);
  // NCCL credits up to two nodes with the intra-node bandwidth, more with the network's.
  const Bandwidth raw = g.nodes <= 2 ? g.ring_bus : std::min(g.ring_bus, g.node_net);
  Bandwidth bus =
      cap(share(share(raw, t.bus_ppm), simple.share_ppm), simple.channel_max, g.channels);
  if (p != proto_index(Protocol::kSimple))
    bus = cap(share(bus, c.share_ppm), c.channel_max, g.channels);
  if (p == proto_index(Protocol::kLL)) bus = std::min(bus, t.ll_max);
  const auto local = static_cast<uint64_t>(g.ranks / std::max(g.nodes, 1) - 1);
  const auto depth = static_cast<uint64_t>(std::bit_width(static_cast<unsigned>(g.nodes)) - 1);
  const Duration lat = c.base + (c.hw[static_cast<size_t>(g.intra)] * local +
                                 c.hw[static_cast<size_t>(Hw::kNet)] * depth) *
                                    2;
  // NCCL's empirical correction by size: the tree does not follow the model at mid sizes.
  const std::vector<uint32_t>& corr = t.tree_correction_ppm[p];
  if (bytes >= 64) {
    const auto log = static_cast<size_t>(std::bit_width(bytes / 64) - 1);
    if (log < corr.size()) bus = share(bus, corr[log]);
  }
  return {lat, bus / 2};
}

Cost nvls_cost(const TunerConstants& t, const TunerGroup& g, size_t p) {
  const TunerCell& c = t.cell(TunerAlgo::kNvls, p);
  return {c.base + c.hw[static_cast<size_t>(Hw::kNvlink)],
          share(share(g.nvls_bus, t.bus_ppm), c.share_ppm)};
}

bool runnable(const TunerGroup& g, Algo a, Protocol p) {
  if (p == Protocol::kLL128 && !g.ll128) return false;
  if (a == Algo::kNvls) return p == Protocol::kSimple && g.nvls_bus != Bandwidth() && g.nodes == 1;
  return true;
}

}  // namespace

std::optional<Estimate> estimate(const TunerConstants& t, const TunerGroup& g, Kind kind,
                                 uint64_t bytes, Algo algo, Protocol proto) {
  if (algo == Algo::kAuto || proto == Protocol::kAuto || g.ranks < 2) return std::nullopt;
  const size_t p = proto_index(proto);
  if (!t.cell(cells_of(algo), p).available() || !runnable(g, algo, proto)) return std::nullopt;
  const Cost c = algo == Algo::kTree   ? tree_cost(t, g, p, bytes)
                 : algo == Algo::kNvls ? nvls_cost(t, g, p)
                                       : ring_cost(t, g, kind, p);
  if (c.algbw == Bandwidth()) return std::nullopt;
  return Estimate{algo, proto, c.latency + transfer_time(Bytes(bytes), c.algbw)};
}

std::vector<Estimate> candidates(const TunerConstants& t, const TunerGroup& g, Kind kind,
                                 uint64_t bytes, Algo algo, Protocol proto, Algo fallback) {
  std::vector<Algo> algos;
  if (algo != Algo::kAuto) {
    algos.push_back(algo);
  } else {
    algos.push_back(algorithm(Algo::kRing).implements(kind) ? Algo::kRing : fallback);
    if (kind == Kind::kAllReduce && g.nodes > 1) algos.push_back(Algo::kTree);
    if (kind == Kind::kAllReduce) algos.push_back(Algo::kNvls);
  }
  std::vector<Estimate> out;
  for (const Algo a : algos) {
    for (const Protocol p : {Protocol::kSimple, Protocol::kLL128, Protocol::kLL}) {
      if (proto != Protocol::kAuto && p != proto) continue;
      if (auto e = estimate(t, g, kind, bytes, a, p)) out.push_back(*e);
    }
  }
  return out;
}

Estimate choose(const TunerConstants& t, const TunerGroup& g, Kind kind, uint64_t bytes, Algo algo,
                Protocol proto, Algo fallback) {
  const std::vector<Estimate> all = candidates(t, g, kind, bytes, algo, proto, fallback);
  if (all.empty()) {
    throw ModelError("collectives", "the tuner has no estimate for the " +
                                        std::string(to_string(kind)) +
                                        " (check the preset's "
                                        "\"tuner\" cells)");
  }
  return *std::min_element(all.begin(), all.end(),
                           [](const Estimate& a, const Estimate& b) { return a.time < b.time; });
}

}  // namespace t3sim::collectives
