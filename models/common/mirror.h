// Folded (rotation-symmetric) runs. When every GPU of a tensor-parallel group runs the same program
// shifted by its rank, on a fabric that looks the same from every GPU (ring, fully connected,
// single switch), GPU g's trajectory is GPU 0's with every rank-indexed quantity rotated by g. A
// folded run simulates GPU 0 alone: what GPU 0 sends to GPU d crosses the real links towards d and
// then lands at GPU 0 as the access GPU 0 receives from GPU -d, i.e. with its rank-indexed data
// (which RS chunk, which tracker tile) rotated by -d positions. A MirrorMap does that rotation for
// the buffers whose layout is rank-indexed; addresses outside them (e.g. collective receive slots)
// are the same on every GPU and pass unchanged.
// Fidelity: exact up to the HBM channel mapping of the rotated addresses (GPU d's chunk c and GPU
// 0's chunk c - d sit at different offsets); tests/models/system compares folded and full runs.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace t3sim::common {

class MirrorMap {
 public:
  virtual ~MirrorMap() = default;
  // Rewrites (addr, tile) of an access addressed to GPU `dst` into the view of GPU `rep`, the
  // simulated GPU that stands for it (rotation by rep - dst ring positions; rep is 0 when one GPU
  // stands for all). Accesses outside the rank-indexed buffers keep their address and tile.
  virtual void to_rep(int dst, int rep, uint64_t& addr, uint32_t& tile) const = 0;
};

// The rotations a folded run relies on. GPU g is (node g / per_node, local g % per_node); rotating
// by h adds h's node and local index to g's, each modulo its count. One node (nodes = 1) is the
// plain rotation g -> g + h mod N of a ring, a fully connected fabric or one switch; nodes x local
// is a rail-optimised two-level fabric, whose links map onto links under both rotations.
// With `whole_nodes`, only rotations by whole nodes (h a multiple of per_node) count: a flat ring
// across nodes maps onto itself under them but not under local rotations. A folded run then keeps
// node 0's GPUs, one representative per orbit: GPU g stands rotated by shift(g) from rep(g).
struct GpuRotation {
  int nodes = 1;
  int per_node = 1;
  bool whole_nodes = false;
  int size() const { return nodes * per_node; }
  // GPUs a folded run simulates: [0, reps()).
  int reps() const { return whole_nodes ? per_node : 1; }
  // g = add(rep(g), shift(g)), rep(g) in [0, reps()).
  int rep(int g) const { return whole_nodes ? g % per_node : 0; }
  int shift(int g) const { return whole_nodes ? g - g % per_node : g; }
  int add(int a, int b) const {
    return ((a / per_node + b / per_node) % nodes) * per_node +
           (a % per_node + b % per_node) % per_node;
  }
  int neg(int a) const {
    return ((nodes - a / per_node) % nodes) * per_node + (per_node - a % per_node) % per_node;
  }
};

// Raised while building a folded run that is not rotation-symmetric (an asymmetric schedule, a
// DMA collective, a multi-node algorithm). Callers fall back to simulating every GPU.
class FoldError : public std::runtime_error {
 public:
  explicit FoldError(const std::string& why) : std::runtime_error("cannot fold: " + why) {}
};

}  // namespace t3sim::common
