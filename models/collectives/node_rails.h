// Rails of a ring across nodes, after NCCL's topology search (src/graph/search.cc) on
// rail-optimised machines such as DGX H100 (one NIC per GPU): each ring channel enters and leaves a
// node through its own NIC, so the channels together use every NIC of the node at once, and NCCL's
// tuner credits the ring with the NICs' summed bandwidth (src/graph/tuning.cc). t3sim reads the
// NICs off the fabric's links: of the routes from one node to the next, the links no route
// between the node's own GPUs uses, stage by stage, and the stage with the fewest distinct links
// (a NIC's own link where GPUs share it) counts the NICs. Channel c's ring runs the group's order
// with every node's GPUs rotated by the same amount, so its node-crossing hop (last GPU of one node
// to the first of the next) leaves through rail c's NIC.
//
// Contract: deterministic; `rotations` lists distinct local offsets whose crossing hop leaves
// through distinct NICs (empty: the group is not whole nodes in node-major order of at least two
// nodes, or the fabric exposes no links); every ring from rail_rings() is a permutation of the
// group's ranks starting at rank 0.
#pragma once

#include <cstdint>
#include <vector>

#include "models/collectives/channel_plan.h"
#include "sim/units.h"

namespace t3sim::collectives {

struct NodeRails {
  int nodes = 0;               // nodes of the group
  int local = 0;               // ranks per node
  std::vector<int> rotations;  // per rail: the local offset of the rank that enters each node
  uint32_t nics = 0;           // distinct exit links of a node (its NICs)
  Bandwidth bandwidth;         // their summed rate, per direction
};

// The rails of a group whose rank r lives in node `node_of_rank[r]`; `path` gives the route
// between two ranks. Reads the routes of the first two nodes only (rail-optimised fabrics look
// the same from every node).
NodeRails find_rails(const std::vector<int>& node_of_rank, const RankPath& path);

// The ring of each of `channels` channels: channel c rotates every node's ranks by
// rotations[c % rails], so channel c crosses nodes on rail c mod rails.
std::vector<RingOrder> rail_rings(const NodeRails& rails, uint32_t channels);

}  // namespace t3sim::collectives
