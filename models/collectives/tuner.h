// NCCL's algorithm and protocol choice (src/graph/tuning.cc, validation/reference/nccl-tuning.md):
// every (algorithm, protocol) pair gets an estimated time = base latency + per-step hardware
// latency x steps + bytes / (bus bandwidth x protocol share x bus-to-algorithm ratio), and `auto`
// takes the fastest. NCCL's constants come from the preset (tuner_constants.h); the bandwidths come
// from t3sim's own fabric and channel plan (TunerGroup), so the estimate follows what t3sim runs.
// Fidelity: NCCL's cost model with its Tree correction table. Contract: pure and
// deterministic; estimates grow with bytes; a pair the group cannot run (NVLS without an in-switch
// reduction, LL128 off NVLink, Tree inside one node under auto) is never chosen; ties keep the
// order ring, tree, nvls and simple, ll128, ll.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/collectives/library.h"
#include "models/collectives/tuner_constants.h"

namespace t3sim::collectives {

// What the tuner knows about a group of GPUs (collective_tuner.cpp derives it from the machine).
struct TunerGroup {
  int ranks = 1;
  int nodes = 1;
  Hw intra = Hw::kNvlink;  // the hardware of intra-node steps
  Bandwidth ring_bus;      // per GPU: the rings of one node (channel plan x link efficiency)
  Bandwidth cross_ring;    // per GPU: a ring across nodes (zero: one node): min(own link, the
                           // node's NICs) with a rail per channel, else its slowest hop
  Bandwidth node_net;      // per node: the sum of its NICs' rates (zero: one node)
  Bandwidth nvls_bus;      // per GPU: its switch port for NVLS (zero: no NVLS for this group)
  uint32_t channels = 1;   // channels of the collective (the per-channel caps scale with them)
  bool ll128 = true;       // LL128 allowed: every hop intra-node NVLink
};

struct Estimate {
  Algo algo = Algo::kRing;
  Protocol proto = Protocol::kSimple;
  Duration time;
};

// The estimate of one pair; empty when NCCL's model has no such pair or the group cannot run it.
// `algo` may be any algorithm: direct and hierarchical are costed with the ring's cells.
std::optional<Estimate> estimate(const TunerConstants& t, const TunerGroup& g, Kind kind,
                                 uint64_t bytes, Algo algo, Protocol proto);

// Every pair `auto` considers for `kind`, in tie order: ring (or `fallback`, the kind's
// preferred algorithm, when ring has no schedule for it), tree (all-reduce across nodes), nvls
// (all-reduce with nvls_bus). `algo`/`proto` other than kAuto restrict the candidates to that one.
std::vector<Estimate> candidates(const TunerConstants& t, const TunerGroup& g, Kind kind,
                                 uint64_t bytes, Algo algo, Protocol proto, Algo fallback);

// The fastest of candidates(); ModelError if there is none.
Estimate choose(const TunerConstants& t, const TunerGroup& g, Kind kind, uint64_t bytes, Algo algo,
                Protocol proto, Algo fallback);

}  // namespace t3sim::collectives
