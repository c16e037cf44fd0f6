#include "models/system/replay_ranks.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "models/system/replay_graph.h"
#include "models/system/replay_sims.h"
#include "models/system/system.h"
#include "sim/errors.h"

namespace t3sim::system {
namespace {

using namespace replay_detail;
using workload::Op;
using workload::OpKind;
using workload::Trace;
using Spans = std::vector<std::pair<double, double>>;

// One rank's program as units (single ops or fused pairs, led by the lower index).
struct Rank {
  const Trace* trace = nullptr;
  const std::string* file = nullptr;
  Graph g;
  std::vector<int> partner;
  std::vector<int> waiting;                              // per unit leader: preds not placed
  std::vector<std::vector<int>> next;                    // per unit leader: units after it
  std::vector<std::vector<std::pair<int, int>>> remote;  // per unit leader: (rank, unit) after it
  std::vector<int> group;                                // per unit leader: its collective, or -1
  std::vector<std::pair<int, int>> send_of;              // per recv op: the matched (rank, send op)
  std::vector<char> placed;
  std::vector<ReplayOp> out;
  int unit(int i) const { return at(partner, i) < 0 ? i : std::min(i, at(partner, i)); }
};

struct Group {
  std::vector<int> member;  // per rank: its unit leader
  int arrived = 0;
};

bool is_p2p(const Op& op) { return workload::is_point_to_point(op.kind); }
bool is_group_op(const Op& op) { return workload::is_collective(op.kind) && !is_p2p(op); }

class Scheduler {
 public:
  Scheduler(const ConfigDoc& doc, const std::vector<Trace>& traces,
            const std::vector<std::string>& files, const ReplayOptions& options, int gpus)
      : gpus_(gpus), options_(options), sims_(doc, options, gpus), ranks_(traces.size()) {
    for (size_t r = 0; r < traces.size(); ++r) build_rank(static_cast<int>(r), traces[r], files[r]);
    match_collectives();
    match_p2p();
  }

  void run() {
    std::deque<std::pair<int, int>> ready;
    for (size_t r = 0; r < ranks_.size(); ++r) {
      const Rank& k = ranks_[r];
      for (size_t u = 0; u < k.waiting.size(); ++u) {
        if (k.unit(static_cast<int>(u)) == static_cast<int>(u) && k.waiting[u] == 0) {
          ready.emplace_back(static_cast<int>(r), static_cast<int>(u));
        }
      }
    }
    while (!ready.empty()) {
      const auto [r, u] = ready.front();
      ready.pop_front();
      const int gi = at(ranks_[static_cast<size_t>(r)].group, u);
      std::vector<std::pair<int, int>> done;
      if (gi < 0) {
        place_single(r, u);
        done.emplace_back(r, u);
      } else if (++groups_[static_cast<size_t>(gi)].arrived == static_cast<int>(ranks_.size())) {
        place_group(groups_[static_cast<size_t>(gi)]);
        for (size_t k = 0; k < ranks_.size(); ++k) {
          done.emplace_back(static_cast<int>(k), groups_[static_cast<size_t>(gi)].member[k]);
        }
      }
      for (const auto& [dr, du] : done) release(dr, du, ready);
    }
    refuse_stuck();
  }

  std::vector<Rank>& ranks() { return ranks_; }
  Simulations& sims() { return sims_; }
  uint64_t collectives() const { return groups_.size(); }
  uint64_t matched_p2p = 0;
  uint64_t unmatched_p2p = 0;

 private:
  void build_rank(int r, const Trace& t, const std::string& file) {
    Rank& k = ranks_[static_cast<size_t>(r)];
    k.trace = &t;
    k.file = &file;
    k.g = build_graph(t);
    k.partner = find_pairs(t, k.g, static_cast<uint64_t>(gpus_));
    const size_t n = t.ops.size();
    k.waiting.assign(n, 0);
    k.next.assign(n, {});
    k.remote.assign(n, {});
    k.group.assign(n, -1);
    k.send_of.assign(n, {-1, -1});
    k.placed.assign(n, 0);
    k.out.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (k.unit(static_cast<int>(i)) == static_cast<int>(i)) ++units_;
      for (int p : k.g.preds[i]) {
        const int from = k.unit(p), to = k.unit(static_cast<int>(i));
        if (from == to) continue;
        at(k.next, from).push_back(to);
        ++at(k.waiting, to);
      }
    }
  }

  [[noreturn]] void fail(int r, int op, const std::string& what) const {
    const Rank& k = ranks_[static_cast<size_t>(r)];
    throw ConfigError(*k.file, "/ops/" + std::to_string(op),
                      fmt::format("rank {}: op '{}' {}", r, at(k.trace->ops, op).id, what));
  }

  // The k-th collective of every rank is one collective: same kind and bytes everywhere.
  void match_collectives() {
    std::vector<std::vector<int>> lists(ranks_.size());
    for (size_t r = 0; r < ranks_.size(); ++r) {
      const auto& ops = ranks_[r].trace->ops;
      for (size_t i = 0; i < ops.size(); ++i) {
        if (is_group_op(ops[i])) lists[r].push_back(static_cast<int>(i));
      }
    }
    for (size_t r = 1; r < ranks_.size(); ++r) {
      const size_t common = std::min(lists[r].size(), lists[0].size());
      for (size_t c = 0; c < common; ++c) {
        const Op& mine = at(ranks_[r].trace->ops, lists[r][c]);
        const Op& first = at(ranks_[0].trace->ops, lists[0][c]);
        if (mine.kind != first.kind || mine.bytes != first.bytes) {
          fail(static_cast<int>(r), lists[r][c],
               fmt::format("is collective #{} of its rank, a {} of {} B, but rank 0's #{} ('{}') "
                           "is a {} of {} B; every rank must issue the same collectives in the "
                           "same order (give each rank its own trace, in rank order)",
                           c, workload::to_string(mine.kind), mine.bytes, c, first.id,
                           workload::to_string(first.kind), first.bytes));
        }
      }
      if (lists[r].size() != lists[0].size()) {
        const bool fewer = lists[r].size() < lists[0].size();
        const int rank = fewer ? 0 : static_cast<int>(r);
        const auto& l = fewer ? lists[0] : lists[r];
        fail(
            rank, l[common],
            fmt::format("is collective #{}, which rank {} never issues ({} collectives against "
                        "{}): the ranks would hang; give matching traces",
                        common, fewer ? static_cast<int>(r) : 0, lists[r].size(), lists[0].size()));
      }
    }
    groups_.resize(lists[0].size());
    for (size_t c = 0; c < groups_.size(); ++c) {
      for (size_t r = 0; r < ranks_.size(); ++r) {
        const int u = ranks_[r].unit(lists[r][c]);
        groups_[c].member.push_back(u);
        at(ranks_[r].group, u) = static_cast<int>(c);
      }
    }
  }

  // Rank r's k-th send to rank q is rank q's k-th recv from rank r.
  void match_p2p() {
    const int n = static_cast<int>(ranks_.size());
    std::map<std::pair<int, int>, std::deque<int>> sends;  // (from, to) -> send ops
    for (int r = 0; r < n; ++r) {
      const auto& ops = ranks_[static_cast<size_t>(r)].trace->ops;
      for (size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].kind == OpKind::kSend) {
          sends[{r, (r + ops[i].peer) % n}].push_back(static_cast<int>(i));
        }
      }
    }
    for (int q = 0; q < n; ++q) {
      Rank& k = ranks_[static_cast<size_t>(q)];
      for (size_t i = 0; i < k.trace->ops.size(); ++i) {
        const Op& recv = k.trace->ops[i];
        if (recv.kind != OpKind::kRecv) continue;
        const int from = (q + recv.peer) % n;
        auto& queue = sends[{from, q}];
        if (queue.empty()) {
          ++unmatched_p2p;
          continue;
        }
        const int send = queue.front();
        queue.pop_front();
        const Op& s = at(ranks_[static_cast<size_t>(from)].trace->ops, send);
        if (s.bytes != recv.bytes) {
          fail(q, static_cast<int>(i),
               fmt::format("receives {} B from rank {}, whose matching send '{}' sends {} B; "
                           "the k-th send to a rank must match its k-th recv from the sender",
                           recv.bytes, from, s.id, s.bytes));
        }
        k.send_of[i] = {from, send};
        ++at(k.waiting, k.unit(static_cast<int>(i)));
        Rank& sender = ranks_[static_cast<size_t>(from)];
        at(sender.remote, sender.unit(send)).emplace_back(q, k.unit(static_cast<int>(i)));
        ++matched_p2p;
      }
    }
    for (const auto& [pair, queue] : sends) unmatched_p2p += queue.size();
  }

  // The earliest start of unit u of rank r: its members' preds' ends, plus the leader's idle.
  double ready_time(const Rank& k, int u) const {
    const int other = at(k.partner, u);
    double start = 0;
    for (int member : {u, other}) {
      if (member < 0) continue;
      for (int p : at(k.g.preds, member)) {
        if (p != u && p != other) start = std::max(start, at(k.out, p).end_us());
      }
    }
    return start + at(k.trace->ops, u).idle_us;
  }

  void place_single(int r, int u) {
    Rank& k = ranks_[static_cast<size_t>(r)];
    const Op& op = at(k.trace->ops, u);
    const double start = ready_time(k, u);
    if (unsimulated(op, gpus_)) {
      at(k.out, u) = describe(op, start, op.measured_us.value_or(0), "not simulated");
      return;
    }
    const auto [from, send] = at(k.send_of, u);
    if (send >= 0) {
      const ReplayOp& s = at(ranks_[static_cast<size_t>(from)].out, send);
      at(k.out, u) = describe(op, start, std::max(0.0, s.end_us() - start),
                              fmt::format("p2p (data of rank {}'s {})", from, s.id));
      at(k.out, u).wait_us = std::max(0.0, s.start_us - start);
      return;
    }
    at(k.out, u) = describe(op, start, sims_.single(op), model_of(op.kind));
  }

  // A collective across every rank: it starts when the last rank reaches it (a fused pair's
  // collective part: when the last rank's GEMM ends) and runs for the longest rank's time.
  void place_group(const Group& grp) {
    const size_t n = ranks_.size();
    std::vector<double> ready(n), gemm_end(n);
    std::vector<Simulations::Times> times(n);
    double last = 0, longest = 0;
    for (size_t r = 0; r < n; ++r) {
      const Rank& k = ranks_[r];
      const int u = grp.member[r];
      const int other = at(k.partner, u);
      ready[r] = ready_time(k, u);
      if (other >= 0) {
        const auto [gi, ai] = fused_ops(k, u);
        times[r] = sims_.fused(at(k.trace->ops, gi), at(k.trace->ops, ai).kind);
      } else {
        times[r] = {sims_.single(at(k.trace->ops, u)), 0};
      }
      gemm_end[r] = ready[r] + times[r].gemm_us;
      last = std::max(last, gemm_end[r]);
      longest = std::max(longest, times[r].total_us - times[r].gemm_us);
    }
    for (size_t r = 0; r < n; ++r) {
      Rank& k = ranks_[r];
      const int u = grp.member[r];
      const bool fused = at(k.partner, u) >= 0;
      int comm = u;
      if (fused) {
        const auto [gi, ai] = fused_ops(k, u);
        at(k.out, gi) = describe(at(k.trace->ops, gi), ready[r], times[r].gemm_us, "fused");
        at(k.out, gi).fused_with = at(k.trace->ops, ai).id;
        comm = ai;
      }
      const Op& op = at(k.trace->ops, comm);
      at(k.out, comm) = describe(op, gemm_end[r], last + longest - gemm_end[r],
                                 fused ? std::string("fused") : model_of(op.kind));
      if (fused) at(k.out, comm).fused_with = at(k.trace->ops, fused_ops(k, u).first).id;
      at(k.out, comm).wait_us = last - gemm_end[r];
    }
  }

  // The (GEMM, collective) of the fused pair led by u.
  static std::pair<int, int> fused_ops(const Rank& k, int u) {
    const int other = at(k.partner, u);
    return at(k.trace->ops, u).kind == OpKind::kGemm ? std::make_pair(u, other)
                                                     : std::make_pair(other, u);
  }

  void release(int r, int u, std::deque<std::pair<int, int>>& ready) {
    Rank& k = ranks_[static_cast<size_t>(r)];
    at(k.placed, u) = 1;
    if (options_.progress) options_.progress(++placed_, units_);
    for (int v : at(k.next, u)) {
      if (--at(k.waiting, v) == 0) ready.emplace_back(r, v);
    }
    for (const auto& [q, v] : at(k.remote, u)) {
      Rank& other = ranks_[static_cast<size_t>(q)];
      if (--at(other.waiting, v) == 0) ready.emplace_back(q, v);
    }
  }

  // Ops never placed: a collective some rank never reaches, or a recv whose send waits for it.
  void refuse_stuck() const {
    for (size_t r = 0; r < ranks_.size(); ++r) {
      const Rank& k = ranks_[r];
      for (size_t i = 0; i < k.placed.size(); ++i) {
        const int u = k.unit(static_cast<int>(i));
        if (u != static_cast<int>(i) || k.placed[i]) continue;
        const int gi = k.group[i];
        fail(static_cast<int>(r), u,
             gi >= 0 ? fmt::format("never runs: collective #{} waits for a rank that, through "
                                   "its deps and streams, waits for this rank (the ranks issue "
                                   "their collectives in different orders); reorder the ops",
                                   gi)
                     : "never runs: it waits, through its deps, streams and a recv from another "
                       "rank, for itself (a cycle across ranks); reorder the ops");
      }
    }
  }

  int gpus_;
  ReplayOptions options_;
  Simulations sims_;
  std::vector<Rank> ranks_;
  std::vector<Group> groups_;
  size_t placed_ = 0;
  size_t units_ = 0;
};

Spans merged(Spans spans) {
  std::sort(spans.begin(), spans.end());
  Spans out;
  for (const auto& s : spans) {
    if (s.second <= s.first) continue;
    if (!out.empty() && s.first <= out.back().second) {
      out.back().second = std::max(out.back().second, s.second);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

double length(const Spans& spans) {
  double sum = 0;
  for (const auto& [a, b] : spans) sum += b - a;
  return sum;
}

// Length of the intersection of two merged span lists.
double overlap(const Spans& a, const Spans& b) {
  double sum = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    sum += std::max(0.0, std::min(a[i].second, b[j].second) - std::max(a[i].first, b[j].first));
    (a[i].second < b[j].second ? i : j)++;
  }
  return sum;
}

RankReplay summarise(const Rank& k, int gpus) {
  RankReplay out;
  ReplayResult& r = out.result;
  r.ops = k.out;
  Spans comm, compute;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const ReplayOp& op = r.ops[i];
    r.total_us = std::max(r.total_us, op.end_us());
    r.idle_us += op.idle_us;
    out.wait_us += op.wait_us;
    if (!workload::is_collective(op.kind)) {
      compute.emplace_back(op.start_us, op.end_us());
      continue;
    }
    ++r.comm_ops;
    if (unsimulated(k.trace->ops[i], gpus)) {
      ++r.unsimulated_comm_ops;
      r.unsimulated_comm_us += op.duration_us;
    }
    comm.emplace_back(op.start_us, op.end_us());
  }
  comm = merged(std::move(comm));
  compute = merged(std::move(compute));
  r.comm_us = length(comm);
  out.compute_us = length(compute);
  out.exposed_comm_us = r.comm_us - overlap(comm, compute);
  return out;
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
    check_tp(traces[r], m.gpus, files[r]);
    check_gemms(traces[r], doc, files[r]);
  }
  Scheduler s(doc, traces, files, options, m.gpus);
  s.run();
  double slowest_busy = 0;
  for (size_t r = 0; r < s.ranks().size(); ++r) {
    RankReplay rank = summarise(s.ranks()[r], m.gpus);
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
  m.matched_p2p = s.matched_p2p;
  m.unmatched_p2p = s.unmatched_p2p;
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
  return out;
}

}  // namespace t3sim::system
