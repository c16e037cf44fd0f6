// The schedule of a multi-rank replay (replay_ranks.h): every rank's units are list-scheduled on
// their streams as replay.h does, with the same memoised simulations, and the ranks wait for each
// other only where matching (replay_rank_match.h) couples them: a collective starts when the last
// member of its group reaches it and runs for the longest member's simulated time (a fused GEMM
// from each rank's own start, its collective after the last member's GEMM); a matched recv ends
// when its send's data has arrived, or at its own start if later. A collective on a sub-group,
// and a send/recv between ranks of a named group, run through the collectives library on exactly
// those GPUs (Simulations::on_gpus).
// Contract: deterministic; a unit that can never run (a collective some member never reaches, a
// cycle across ranks through recvs) is a ConfigError naming the op.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "models/system/replay_rank_match.h"
#include "models/system/replay_rank_state.h"
#include "models/system/replay_sims.h"

namespace t3sim::system::replay_detail {

class RankScheduler {
 public:
  // Each trace's ops run on the process groups its metadata names (workload/trace_groups.h).
  RankScheduler(const ConfigDoc& doc, const std::vector<workload::Trace>& traces,
                const std::vector<std::string>& files, const ReplayOptions& options, int gpus);
  void run();

  std::vector<Rank>& ranks() { return ranks_; }
  const std::vector<Rank>& ranks() const { return ranks_; }
  Simulations& sims() { return sims_; }
  uint64_t collectives() const { return groups_.size(); }
  const P2pMatch& p2p() const { return p2p_; }
  // Whether op i of rank k keeps its measured time (a send/recv the library cannot run).
  bool unsimulated_op(const Rank& k, size_t i) const;

 private:
  void build_rank(int r, const workload::Trace& t, const std::string& file);
  double ready_time(const Rank& k, int u) const;
  void place_single(int r, int u);
  void place_group(const Group& grp);
  void release(int r, int u, std::deque<std::pair<int, int>>& ready);
  void refuse_stuck() const;

  int gpus_;
  ReplayOptions options_;
  Simulations sims_;
  std::vector<Rank> ranks_;
  std::vector<Group> groups_;
  P2pMatch p2p_;
  size_t placed_ = 0;
  size_t units_ = 0;
};

}  // namespace t3sim::system::replay_detail
