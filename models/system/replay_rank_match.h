// Matching across the ranks of a multi-rank replay (replay_ranks.h): the k-th collective that
// every member of a process group issues on that group is one collective (same kind and bytes on
// each member), and rank r's k-th send to rank q is q's k-th recv from r (same bytes), an edge
// that holds the recv until the send is placed. Groups are the ops' global ranks
// (replay_rank_groups.h), so a TP group of 2 and a DP group of 4 match among their own members.
// Contract: a member that issues another kind or size, or fewer collectives on a group than the
// others (it would hang), is a ConfigError naming its file and op. Unmatched sends and recvs
// are returned, in rank and trace order, not refused here.
#pragma once

#include <utility>
#include <vector>

#include "models/system/replay_rank_state.h"

namespace t3sim::system::replay_detail {

// Fills each rank's `group` (per unit leader) and returns the collectives.
std::vector<Group> match_collectives(std::vector<Rank>& ranks);

struct P2pMatch {
  uint64_t matched = 0;
  std::vector<std::pair<int, int>> unmatched;  // (rank, op): sends and recvs with no partner
};
// Fills `send_of`, the recv's `waiting` and the sender's `remote`.
P2pMatch match_p2p(std::vector<Rank>& ranks);

}  // namespace t3sim::system::replay_detail
