// Recursive halving-doubling (Rabenseifner): a reduce-scatter by recursive halving, then an
// all-gather by recursive doubling, on groups of 2^k GPUs. Halving step s (s = 0..k-1) pairs rank
// r with r XOR n/2^(s+1): each sends the half of its current segment that the other keeps and
// reduces the half it keeps, so the bytes halve step by step and rank r ends owning block r;
// doubling step t pairs r with r XOR 2^t and each sends everything it owns. Each phase is log2(n)
// steps instead of the ring's n-1, moving the same (n-1)/n of S per GPU, so it wins where step
// latency dominates and ties at best where bandwidth does (partners at distance n/2 cross more of a
// sparse fabric). Source: Thakur, Rabenseifner, Gropp, "Optimization of Collective Communication
// Operations in MPICH", IJHPCA 19(1), 2005, §4.4 (validation/reference/hardware.md §5.1 for the
// ring it is compared with).
#pragma once

#include <string>

#include "models/collectives/algorithms.h"

namespace t3sim::collectives {

// Per channel and GPU two lanes, one sending and one receiving (a send waits, by `dep`, for the
// receive that reduced or gathered its data); per loop and step one op (all-reduce: the step's
// blocks are contiguous) or one op per block (reduce-scatter, all-gather: blocks are the parts).
// Contract: ConfigError unless the group has a power-of-two size (halving_doubling_refuses()).
Schedule make_halving_doubling(const Geometry& g);
// Empty for a group of 2^k GPUs, else the one-line reason.
std::string halving_doubling_refuses(const Geometry& g);

constexpr AlgorithmSpec halving_doubling_algorithm() {
  return {"halving-doubling",
          "recursive halving reduce-scatter then recursive doubling all-gather, log2(n) steps "
          "per phase (power-of-two groups)",
          kind_bit(Kind::kAllReduce) | kind_bit(Kind::kReduceScatter) | kind_bit(Kind::kAllGather),
          &make_halving_doubling, &halving_doubling_refuses};
}

}  // namespace t3sim::collectives
