// Multi-rank trace replay: one trace per rank (rank r on GPU r), replayed as ONE schedule across
// the ranks, so stragglers and the waiting they cause show. Each rank's ops are list-scheduled on
// its streams as replay.h does, with durations from the same isolated simulations of the whole
// machine; what couples the ranks is matching: the k-th collective of every rank is one collective
// (same kind and bytes on all ranks), which starts when the last rank reaches it, so each rank's
// op spans its own arrival to the common end and its wait is the difference (a fused GEMM runs
// from each rank's own start; its collective waits for the last GEMM); a rank's k-th send to rank
// q is the k-th recv on q from it (peer offsets relative to the rank, as Chakra keeps them): the
// send is eager and the recv ends when the data has arrived, or at its own start if later.
// Process groups: an op that names one (its trace's metadata.process_groups, which Kineto imports
// record) matches among that group's members and runs on their GPUs, so TP groups inside a node
// and DP groups across nodes replay in one run, and a send/recv pairs the two GPUs it names; an
// op naming none spans every rank (replay_rank_groups.h, replay_rank_match.h).
// Fidelity: ops that overlap in time do not contend (as replay.h).
// Contract: deterministic; a rank whose collectives do not match the others' (order, kind, bytes,
// count) or a schedule that deadlocks is a ConfigError naming the rank's file, the op and the fix.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/system/replay.h"

namespace t3sim::system {

struct RankReplay {
  ReplayResult result;         // this rank's ops and totals (comm_us includes waiting)
  double compute_us = 0;       // time during which some non-communication op runs
  double wait_us = 0;          // waited for other ranks inside collectives and recvs
  double exposed_comm_us = 0;  // communication time with no compute running
};

struct MultiRankReplay {
  std::vector<RankReplay> ranks;
  double total_us = 0;   // end of the last op on any rank
  int slowest_rank = 0;  // the straggler: the most time not waiting for others (lowest on ties)
  Mode mode = Mode::kSequential;
  std::string system;
  int gpus = 0;
  uint64_t collectives = 0;           // matched across the ranks
  uint64_t matched_p2p = 0;           // send/recv pairs matched across ranks
  uint64_t unmatched_p2p = 0;         // sends or recvs with no partner (each its own transfer)
  std::vector<std::string> warnings;  // e.g. the unmatched sends and recvs, counted
  uint64_t simulations = 0;
  uint64_t memo_hits = 0;
  double wall_s = 0;
};

// Replays traces[r] as rank r's program; files[r] labels its errors. The system's GPU count must
// equal the number of traces. A send or recv with no partner is replayed as its own transfer and
// counted in one warning; options.strict refuses it (ConfigError naming the first).
MultiRankReplay replay_ranks(const ConfigDoc& system_doc,
                             const std::vector<workload::Trace>& traces,
                             const std::vector<std::string>& files,
                             const ReplayOptions& options = {});

// {"ranks": [{"rank", "total_us", "compute_us", "comm_us", "wait_us", "exposed_comm_us",
// "comm_ops", "unsimulated_comm_ops", "ops": [...]}...], "total_us", "slowest_rank", "mode",
// "system", "gpus", "collectives", "matched_p2p", "unmatched_p2p", "simulations", "memo_hits",
// "wall_s", "warnings"}.
nlohmann::ordered_json to_json(const MultiRankReplay& result);

}  // namespace t3sim::system
