// The state of a multi-rank replay (replay_ranks.h) that its steps share: each rank's program as
// units (single ops or fused GEMM + collective pairs, led by the lower index), the process group
// of every communication op as global ranks, the cross-rank collectives and the send -> recv
// edges. Internal to models/system/replay_rank*.cpp.
// Contract: indices are ops of the rank's trace, -1 meaning none; a rank is its GPU.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "models/system/replay.h"
#include "models/system/replay_graph.h"

namespace t3sim::system::replay_detail {

struct Rank {
  const workload::Trace* trace = nullptr;
  const std::string* file = nullptr;
  Graph g;
  std::vector<int> partner;
  // Per op: the global ranks of its group in group order (communication ops; empty otherwise),
  // and whether the trace's profile named them (a sub-group) rather than "every rank".
  std::vector<std::vector<int>> members;
  std::vector<char> named_group;
  std::vector<int> waiting;                              // per unit leader: preds not placed
  std::vector<std::vector<int>> next;                    // per unit leader: units after it
  std::vector<std::vector<std::pair<int, int>>> remote;  // per unit leader: (rank, unit) after it
  std::vector<int> group;                                // per unit leader: its collective, or -1
  std::vector<std::pair<int, int>> send_of;              // per recv op: the matched (rank, send op)
  std::vector<char> placed;
  std::vector<ReplayOp> out;
  int unit(int i) const { return at(partner, i) < 0 ? i : std::min(i, at(partner, i)); }
  // The global rank a send goes to or a recv comes from; `self` is this rank.
  int peer_rank(int op, int self) const;
};

// One collective across the ranks of its group.
struct Group {
  std::vector<std::pair<int, int>> member;  // (rank, unit leader), in group order
  std::vector<int> gpus;                    // the group's GPUs, in group order
  bool whole = true;                        // every rank in rank order: the sublayer runner's ring
  int arrived = 0;
};

// The (GEMM, collective) of the fused pair led by u.
inline std::pair<int, int> fused_ops(const Rank& k, int u) {
  const int other = at(k.partner, u);
  return at(k.trace->ops, u).kind == workload::OpKind::kGemm ? std::make_pair(u, other)
                                                             : std::make_pair(other, u);
}

// A ConfigError naming rank r's file, the op and `what`.
[[noreturn]] void fail_op(const Rank& k, int r, int op, const std::string& what);

}  // namespace t3sim::system::replay_detail
