// Ring orders for multi-ring collectives on fully connected fabrics (RCCL's xGMI rings, NCCL's
// rings on NVLink meshes): a set of directed Hamiltonian cycles over n ranks that share no directed
// link, so channels spread over every link of a GPU instead of queueing on one. The complete
// directed graph on n vertices splits into n-1 such cycles for every n except 4 and 6 (Tillson
// 1980); a bounded depth-first search finds them. Deterministic: the same n gives the same rings,
// the first being the canonical order 0, 1, ..., n-1.
// Contract: every ring is a permutation of 0..n-1 starting at 0; no directed pair (a, b) appears in
// two rings; at least one ring for n >= 2.
#pragma once

#include <vector>

namespace t3sim::collectives {

using RingOrder = std::vector<int>;  // position -> rank

// Edge-disjoint rings: n-1 of them when the search finds a full split within its budget (n <= 16),
// otherwise the rings r -> r + s for every step s coprime with n (all disjoint, fewer links).
std::vector<RingOrder> disjoint_rings(int n);

}  // namespace t3sim::collectives
