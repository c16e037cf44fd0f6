// The keys of a fabric config beyond the core ones (topology, model, local_latency, link): the
// shared keys several topologies use (sizes, the switch, NIC and IB switch objects, node
// placement), declared once in topology_keys.cpp, and each topology row's own keys
// (TopologyKind::declare). A config is bound against the keys of its topology alone; `t3sim
// describe fabric`, `--set` and the schema see every key, each described with the topologies that
// use it, generated from the table. Contract: no two rows (nor a row and a shared key) declare the
// same name (ModelError when generating the full set).
#pragma once

#include <cstdint>

#include "models/fabric/builders.h"
#include "sim/params.h"

namespace t3sim::fabric {

// Adds what `kind` accepts: the shared keys it needs (required unless in `derived`, a key the
// caller supplies otherwise) or allows (optional), then its own keys as it declares them.
void add_topology_keys(Params& p, const TopologyKind& kind, uint32_t derived);
// Adds every shared key and every row's own key, all optional (a row's required key has no
// default), each description naming its topologies.
void add_every_topology_key(Params& p);

}  // namespace t3sim::fabric
