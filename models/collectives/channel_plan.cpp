#include "models/collectives/channel_plan.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>

namespace t3sim::collectives {
namespace {

constexpr uint64_t kDivisors = 4;              // speeds: each link rate / 1..4
constexpr uint64_t kSearchSteps = 20'000;      // depth-first extensions per ring searched
constexpr int kMaxPlannedRanks = 64;           // larger groups keep their order (O(n^2) routes)
constexpr uint64_t kMinSpeed = 1'000'000'000;  // 1 GB/s: slower speeds are not tried

// Every ordered pair's route as dense link indices, and each link's rate.
struct LinkGraph {
  int n = 0;
  std::vector<std::vector<uint32_t>> hop;  // [a * n + b] -> link indices
  std::vector<uint64_t> rate;              // per link index, B/s
  std::vector<uint32_t> id;                // per link index, the fabric's id
  bool complete = true;                    // every pair has a route
  bool mesh = true;                        // every pair is one link apart

  const std::vector<uint32_t>& links(int a, int b) const {
    return hop[static_cast<size_t>(a * n + b)];
  }
};

LinkGraph read_graph(int n, const RankPath& path) {
  LinkGraph g;
  g.n = n;
  g.hop.resize(static_cast<size_t>(n * n));
  std::unordered_map<uint32_t, uint32_t> index;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      const std::vector<common::PathLink> p = path(a, b);
      if (p.empty()) g.complete = false;
      if (p.size() != 1) g.mesh = false;
      auto& out = g.hop[static_cast<size_t>(a * n + b)];
      for (const common::PathLink& l : p) {
        auto [it, fresh] = index.emplace(l.id, static_cast<uint32_t>(g.rate.size()));
        if (fresh) {
          g.rate.push_back(l.bandwidth.bytes_per_second());
          g.id.push_back(l.id);
        }
        out.push_back(it->second);
      }
    }
  }
  return g;
}

RingOrder identity(int n) {
  RingOrder r(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) r[static_cast<size_t>(i)] = i;
  return r;
}

// The same cycle run the other way, still starting at rank 0.
RingOrder reversed(const RingOrder& r) {
  RingOrder out(r.size());
  out[0] = r[0];
  for (size_t i = 1; i < r.size(); ++i) out[i] = r[r.size() - i];
  return out;
}

// The orders tried first, in this order, without repeats.
std::vector<RingOrder> candidates(const LinkGraph& g) {
  std::vector<RingOrder> fwd{identity(g.n)};
  if (g.mesh && g.n >= 3) fwd = disjoint_rings(g.n);
  std::vector<RingOrder> out;
  auto add = [&](RingOrder r) {
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(std::move(r));
  };
  for (const RingOrder& r : fwd) add(r);
  for (const RingOrder& r : fwd) add(reversed(r));
  return out;
}

// Searches rings at one speed against the links' remaining capacity.
class SpeedSearch {
 public:
  SpeedSearch(const LinkGraph& g, uint64_t speed)
      : g_(g), speed_(speed), left_(g.rate), use_(g.rate.size(), 0) {}

  // Takes `r` if every link it crosses has speed x uses left.
  bool take_if_fits(const RingOrder& r) {
    bool fits = true;
    std::vector<uint32_t> touched;
    for (size_t i = 0; i < r.size(); ++i) {
      for (const uint32_t l : g_.links(r[i], r[(i + 1) % r.size()])) {
        if (use_[l]++ == 0) touched.push_back(l);
        fits = fits && static_cast<uint64_t>(use_[l]) * speed_ <= left_[l];
      }
    }
    for (const uint32_t l : touched) {
      if (fits) left_[l] -= static_cast<uint64_t>(use_[l]) * speed_;
      use_[l] = 0;
    }
    return fits;
  }

  // Depth-first search from rank 0, next hops with the most capacity left first.
  bool search(RingOrder& out) {
    steps_ = 0;
    path_.assign(1, 0);
    in_path_.assign(static_cast<size_t>(g_.n), false);
    in_path_[0] = true;
    if (!extend()) return false;
    out = path_;
    return true;
  }

 private:
  // Charges (on = true) or releases the hop a -> b; false (and nothing charged) if it does not fit.
  bool charge(int a, int b, bool on) {
    const auto& ls = g_.links(a, b);
    if (on) {
      for (size_t i = 0; i < ls.size(); ++i) {
        if (left_[ls[i]] < speed_) {
          for (size_t j = 0; j < i; ++j) left_[ls[j]] += speed_;
          return false;
        }
        left_[ls[i]] -= speed_;
      }
      return true;
    }
    for (const uint32_t l : ls) left_[l] += speed_;
    return true;
  }
  uint64_t headroom(int a, int b) const {
    uint64_t h = UINT64_MAX;
    for (const uint32_t l : g_.links(a, b)) h = std::min(h, left_[l]);
    return h;
  }
  bool extend() {
    if (++steps_ > kSearchSteps) return false;
    const int u = path_.back();
    if (static_cast<int>(path_.size()) == g_.n) {
      return charge(u, 0, true);  // closing hop; kept charged on success
    }
    struct Next {
      size_t hops;
      uint64_t room;
      int v;
    };
    std::vector<Next> next;
    for (int v = 0; v < g_.n; ++v) {
      if (!in_path_[static_cast<size_t>(v)])
        next.push_back({g_.links(u, v).size(), headroom(u, v), v});
    }
    std::stable_sort(next.begin(), next.end(), [](const Next& a, const Next& b) {
      return a.hops != b.hops ? a.hops < b.hops : a.room > b.room;
    });
    for (const auto& [hops, room, v] : next) {
      if (room < speed_ || !charge(u, v, true)) continue;
      path_.push_back(v);
      in_path_[static_cast<size_t>(v)] = true;
      if (extend()) return true;
      path_.pop_back();
      in_path_[static_cast<size_t>(v)] = false;
      charge(u, v, false);
      if (steps_ > kSearchSteps) return false;
    }
    return false;
  }

  const LinkGraph& g_;
  uint64_t speed_;
  std::vector<uint64_t> left_;
  std::vector<uint16_t> use_;
  RingOrder path_;
  std::vector<bool> in_path_;
  uint64_t steps_ = 0;
};

std::vector<uint64_t> speeds(const LinkGraph& g) {
  std::vector<uint64_t> out;
  for (const uint64_t r : g.rate) {
    for (uint64_t k = 1; k <= kDivisors; ++k) {
      if (r / k >= kMinSpeed) out.push_back(r / k);
    }
  }
  std::sort(out.begin(), out.end(), std::greater<>());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

uint32_t ChannelPlan::found() const {
  uint32_t n = 0;
  for (const uint32_t w : weight) n += w;
  return n;
}

std::vector<RingOrder> ChannelPlan::channel_rings(uint32_t channels) const {
  std::vector<RingOrder> out;
  const uint64_t total = found();
  std::vector<uint64_t> taken(rings.size(), 0);
  for (uint32_t c = 0; c < channels; ++c) {
    // Ring r is behind by weight_r x (c + 1) / total - taken_r; compare x total, integers.
    size_t best = 0;
    int64_t best_gap = INT64_MIN;
    for (size_t r = 0; r < rings.size(); ++r) {
      const auto gap = static_cast<int64_t>(weight[r] * (c + 1) - taken[r] * total);
      if (gap > best_gap) {
        best_gap = gap;
        best = r;
      }
    }
    ++taken[best];
    out.push_back(rings[best]);
  }
  return out;
}

int ChannelPlan::direction(const RingOrder& r) {
  const int n = static_cast<int>(r.size());
  bool fwd = true;
  bool bwd = true;
  for (int i = 0; i < n; ++i) {
    fwd = fwd && r[static_cast<size_t>(i)] == i;
    bwd = bwd && r[static_cast<size_t>(i)] == (n - i) % n;
  }
  return fwd ? 1 : (bwd ? -1 : 0);
}

ChannelPlan plan_rings(int n, const RankPath& path, uint32_t max_rings) {
  ChannelPlan plan;
  plan.rings.push_back(identity(std::max(n, 1)));
  plan.weight.push_back(1);
  if (n < 2 || n > kMaxPlannedRanks || max_rings == 0) return plan;
  const LinkGraph g = read_graph(n, path);
  if (!g.complete) return plan;
  const std::vector<RingOrder> first = candidates(g);
  uint64_t best_total = 0;
  for (const uint64_t s : speeds(g)) {
    // Two packings per speed: the candidate orders first, then the search; and the search alone
    // (where a candidate's multi-link hops would take links a better ring needs). The first wins
    // ties.
    for (const bool with_candidates : {true, false}) {
      SpeedSearch search(g, s);
      std::vector<RingOrder> rings;
      for (bool progress = with_candidates; progress && rings.size() < max_rings;) {
        progress = false;
        for (const RingOrder& c : first) {
          if (rings.size() < max_rings && search.take_if_fits(c)) {
            rings.push_back(c);
            progress = true;
          }
        }
      }
      RingOrder found;
      while (rings.size() < max_rings && search.search(found)) rings.push_back(found);
      const uint64_t total = s * rings.size();
      if (total > best_total) {
        best_total = total;
        plan.rings.clear();
        plan.weight.clear();
        for (RingOrder& r : rings) {  // repeats become weights, first-found order kept
          const auto at = std::find(plan.rings.begin(), plan.rings.end(), r);
          if (at != plan.rings.end()) {
            ++plan.weight[static_cast<size_t>(at - plan.rings.begin())];
          } else {
            plan.rings.push_back(std::move(r));
            plan.weight.push_back(1);
          }
        }
        plan.speed = Bandwidth::bytes_per_s(s);
        plan.searched = true;
      }
    }
  }
  return plan;
}

std::map<uint32_t, Bandwidth> ring_link_load(const ChannelPlan& plan, const RankPath& path) {
  std::map<uint32_t, uint64_t> load;
  for (size_t k = 0; k < plan.rings.size(); ++k) {
    const RingOrder& r = plan.rings[k];
    const uint64_t w = k < plan.weight.size() ? plan.weight[k] : 1;
    for (size_t i = 0; i < r.size() && r.size() > 1; ++i) {
      for (const common::PathLink& l : path(r[i], r[(i + 1) % r.size()])) {
        load[l.id] += plan.speed.bytes_per_second() * w;
      }
    }
  }
  std::map<uint32_t, Bandwidth> out;
  for (const auto& [id, bps] : load) out.emplace(id, Bandwidth::bytes_per_s(bps));
  return out;
}

}  // namespace t3sim::collectives
