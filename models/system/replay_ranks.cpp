#include "models/system/replay_ranks.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include <fmt/format.h>

#include "models/system/replay_graph.h"
#include "models/system/replay_rank_schedule.h"
#include "models/system/replay_rank_summary.h"
#include "models/system/system.h"
#include "sim/errors.h"

namespace t3sim::system {

using workload::Trace;

namespace {

// Sends and recvs with no partner: each is its own transfer, counted in one warning, or the first
// is refused under --strict.
void report_unmatched(const replay_detail::RankScheduler& s, const std::vector<std::string>& files,
                      bool strict, MultiRankReplay& m) {
  const auto& unmatched = s.p2p().unmatched;
  m.unmatched_p2p = unmatched.size();
  if (unmatched.empty()) return;
  const auto& ranks = s.ranks();
  const auto [r, i] = unmatched.front();
  const replay_detail::Rank& k = ranks[static_cast<size_t>(r)];
  const workload::Op& op = k.trace->ops[static_cast<size_t>(i)];
  const bool send = op.kind == workload::OpKind::kSend;
  const std::string first =
      fmt::format("rank {}'s {} '{}' ({} B {} rank {})", r, send ? "send" : "recv", op.id, op.bytes,
                  send ? "to" : "from", k.peer_rank(i, r));
  if (strict) {
    throw ConfigError(files[static_cast<size_t>(r)], "/ops/" + std::to_string(i),
                      fmt::format("{} has no matching {} on the other rank ({} sends or recvs "
                                  "unmatched); give every rank's trace, or drop --strict to "
                                  "replay each as its own transfer",
                                  first, send ? "recv" : "send", unmatched.size()));
  }
  m.warnings.push_back(
      fmt::format("{} sends or recvs have no partner on another rank, each "
                  "replayed as its own transfer (first: {})",
                  unmatched.size(), first));
}

}  // namespace

MultiRankReplay replay_ranks(const ConfigDoc& doc, const std::vector<Trace>& traces,
                             const std::vector<std::string>& files, const ReplayOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  MultiRankReplay m;
  m.mode = options.mode;
  m.system = system_name(doc);
  m.gpus = system_gpus(doc);
  if (traces.empty() || traces.size() != files.size()) {
    throw ConfigError("", "", "replay_ranks: one file name per trace is needed");
  }
  if (static_cast<int>(traces.size()) != m.gpus) {
    const std::string n = std::to_string(traces.size());
    throw ConfigError(files[0], "",
                      fmt::format("{} rank traces, but the system has {} GPUs (rank r runs on GPU "
                                  "r); replay with --set gpus={} or a system with {} GPUs",
                                  n, m.gpus, n, n));
  }
  for (size_t r = 0; r < traces.size(); ++r) {
    workload::check_trace(traces[r], files[r]);
    replay_detail::check_gemms(traces[r], doc, files[r]);
  }
  replay_detail::RankScheduler s(doc, traces, files, options, m.gpus);
  report_unmatched(s, files, options.strict, m);
  s.run();
  double slowest_busy = 0;
  for (size_t r = 0; r < s.ranks().size(); ++r) {
    const replay_detail::Rank& k = s.ranks()[r];
    std::vector<char> unsimulated(k.out.size(), 0);
    for (size_t i = 0; i < k.out.size(); ++i) unsimulated[i] = s.unsimulated_op(k, i);
    RankReplay rank = replay_detail::summarise_rank(k.out, unsimulated);
    rank.result.mode = m.mode;
    rank.result.system = m.system;
    rank.result.gpus = m.gpus;
    if (options.strict && rank.result.unsimulated_comm_ops > 0) {
      throw ConfigError(files[r], "",
                        fmt::format("rank {}: {} sends or recvs to a peer offset not coprime "
                                    "with the {} ranks are not simulated; drop --strict to keep "
                                    "them at their measured time",
                                    r, rank.result.unsimulated_comm_ops, m.gpus));
    }
    m.total_us = std::max(m.total_us, rank.result.total_us);
    const double busy = rank.result.total_us - rank.wait_us;
    if (r == 0 || busy > slowest_busy) {
      slowest_busy = busy;
      m.slowest_rank = static_cast<int>(r);
    }
    m.ranks.push_back(std::move(rank));
  }
  m.collectives = s.collectives();
  m.matched_p2p = s.p2p().matched;
  m.simulations = s.sims().runs;
  m.memo_hits = s.sims().hits;
  m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

nlohmann::ordered_json to_json(const MultiRankReplay& m) {
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (size_t r = 0; r < m.ranks.size(); ++r) {
    const RankReplay& k = m.ranks[r];
    const nlohmann::ordered_json one = to_json(k.result);
    nlohmann::ordered_json j;
    j["rank"] = r;
    j["total_us"] = k.result.total_us;
    j["compute_us"] = k.compute_us;
    j["comm_us"] = k.result.comm_us;
    j["wait_us"] = k.wait_us;
    j["exposed_comm_us"] = k.exposed_comm_us;
    j["comm_ops"] = k.result.comm_ops;
    j["unsimulated_comm_ops"] = k.result.unsimulated_comm_ops;
    j["ops"] = one["ops"];
    for (size_t i = 0; i < k.result.ops.size(); ++i) {
      if (k.result.ops[i].wait_us > 0) j["ops"][i]["wait_us"] = k.result.ops[i].wait_us;
    }
    ranks.push_back(std::move(j));
  }
  nlohmann::ordered_json out;
  out["ranks"] = std::move(ranks);
  out["total_us"] = m.total_us;
  out["slowest_rank"] = m.slowest_rank;
  out["mode"] = to_string(m.mode);
  out["system"] = m.system;
  out["gpus"] = m.gpus;
  out["collectives"] = m.collectives;
  out["matched_p2p"] = m.matched_p2p;
  out["unmatched_p2p"] = m.unmatched_p2p;
  out["simulations"] = m.simulations;
  out["memo_hits"] = m.memo_hits;
  out["wall_s"] = m.wall_s;
  out["warnings"] = m.warnings;
  return out;
}

}  // namespace t3sim::system
