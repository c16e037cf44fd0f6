// Ring channel planning after NCCL's topology search (src/graph/search.cc): rings are searched on
// the fabric's directed links, each ring charging its per-channel speed to every directed link its
// hops cross (a hop between two ranks follows the fabric's route, so a hop through a switch
// charges the GPU's up-link and the peer's down-link, and a hop through other GPUs charges every
// link on the way). The search runs at a series of speeds, from the fastest link down (each link
// rate divided by 1..4); the plan is the set of rings with the most total bandwidth (rings x
// speed), ties keeping the faster speed and hence fewer rings. At each speed, candidates are tried
// in a fixed order — the group's order, on a full mesh the edge-disjoint orders of ring_orders.h,
// then the reverse of each — before a bounded depth-first search that extends a ring through the
// nearest next rank (fewest links), most capacity left first. So a bidirectional ring gets one ring
// in each direction, a full mesh its n-1 disjoint rings, a switch the group's order once, and a
// machine whose GPUs are bridged in pairs a ring that crosses each bridge in both directions.
// A ring found several times (several rings' worth of capacity at a lower speed) is one order with
// a weight; channels are dealt to the orders in proportion to their weights, as NCCL duplicates
// the rings its search found up to its channel count.
// Contract: deterministic; every ring is a permutation of 0..n-1 starting at rank 0; the charged
// load never exceeds a link's rate; at least one ring (the group's order, `searched` false, when
// the fabric exposes no links or no ring fits at any speed).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "models/collectives/ring_orders.h"
#include "models/common/fabric_api.h"
#include "sim/units.h"

namespace t3sim::collectives {

// The directed links of the route from rank a to rank b of the group (a != b).
using RankPath = std::function<std::vector<common::PathLink>(int, int)>;

struct ChannelPlan {
  std::vector<RingOrder> rings;  // distinct orders: position -> rank (index into the group)
  std::vector<uint32_t> weight;  // per ring: how many times the search found it (>= 1)
  Bandwidth speed;               // per ring found: what the search charged each link it crosses
  bool searched = false;         // false: no link information; the group's order
  // The ring of each of `channels` channels: dealt in proportion to the weights, interleaved
  // (channel c takes the ring furthest behind its share), so every ring found carries its share.
  std::vector<RingOrder> channel_rings(uint32_t channels) const;
  uint32_t found() const;  // rings found, counting repeats (sum of weights)
  // +1 when ring r runs the group's order forward (rank i -> i+1 at every position), -1 when it
  // runs it backward, 0 otherwise.
  static int direction(const RingOrder& r);
};

// Plans at most `max_rings` rings (>= 1) over n ranks. Bounded work: a few speeds, the candidate
// orders and a depth-first search of at most a fixed number of steps per ring.
ChannelPlan plan_rings(int n, const RankPath& path, uint32_t max_rings);

// What the plan's rings charge each directed link they cross (link id -> speed x weight x uses),
// for `t3sim describe` and tests.
std::map<uint32_t, Bandwidth> ring_link_load(const ChannelPlan& plan, const RankPath& path);

}  // namespace t3sim::collectives
