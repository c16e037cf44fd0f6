#include "models/collectives/ring_orders.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace t3sim::collectives {
namespace {

constexpr int kSearchMaxRanks = 16;            // beyond: the coprime-step rings
constexpr uint64_t kSearchBudget = 2'000'000;  // extension steps before giving up

// Depth-first search for n-1 arc-disjoint directed Hamiltonian cycles, one after the other.
class Decomposer {
 public:
  explicit Decomposer(int n)
      : n_(n), used_(static_cast<size_t>(n * n), false), in_path_(static_cast<size_t>(n)) {
    for (int i = 0; i < n; ++i) used_[arc(i, i)] = true;
  }
  bool run() { return cycle(0); }
  std::vector<RingOrder> rings() const { return rings_; }

 private:
  size_t arc(int a, int b) const { return static_cast<size_t>(a * n_ + b); }
  bool cycle(int k) {
    if (k == n_ - 1) return true;
    path_.assign(1, 0);
    std::fill(in_path_.begin(), in_path_.end(), false);
    in_path_[0] = true;
    return extend(k);
  }
  void mark(const RingOrder& ring, bool on) {
    for (size_t i = 0; i < ring.size(); ++i) used_[arc(ring[i], ring[(i + 1) % ring.size()])] = on;
  }
  bool close(int k) {
    if (used_[arc(path_.back(), 0)]) return false;
    rings_.push_back(path_);
    mark(rings_.back(), true);
    const RingOrder saved = path_;
    if (cycle(k + 1)) return true;
    path_ = saved;
    std::fill(in_path_.begin(), in_path_.end(), true);
    mark(rings_.back(), false);
    rings_.pop_back();
    return false;
  }
  bool extend(int k) {
    if (++steps_ > kSearchBudget) return false;
    if (static_cast<int>(path_.size()) == n_) return close(k);
    const int u = path_.back();
    for (int v = 0; v < n_; ++v) {
      if (in_path_[static_cast<size_t>(v)] || used_[arc(u, v)]) continue;
      path_.push_back(v);
      in_path_[static_cast<size_t>(v)] = true;
      if (extend(k)) return true;
      path_.pop_back();
      in_path_[static_cast<size_t>(v)] = false;
    }
    return false;
  }

  int n_;
  std::vector<bool> used_;
  std::vector<bool> in_path_;
  RingOrder path_;
  std::vector<RingOrder> rings_;
  uint64_t steps_ = 0;
};

std::vector<RingOrder> coprime_rings(int n) {
  std::vector<RingOrder> out;
  for (int s = 1; s < n; ++s) {
    if (std::gcd(s, n) != 1) continue;
    RingOrder r(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) r[static_cast<size_t>(i)] = (i * s) % n;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

std::vector<RingOrder> disjoint_rings(int n) {
  if (n < 2) return {RingOrder(static_cast<size_t>(std::max(n, 0)), 0)};
  if (n <= kSearchMaxRanks) {
    Decomposer d(n);
    if (d.run()) return d.rings();
  }
  return coprime_rings(n);
}

}  // namespace t3sim::collectives
