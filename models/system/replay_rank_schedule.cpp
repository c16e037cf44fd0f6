#include "models/system/replay_rank_schedule.h"

#include <algorithm>
#include <deque>

#include <fmt/format.h>

#include "models/system/replay_rank_groups.h"

namespace t3sim::system::replay_detail {

using workload::Op;
using workload::OpKind;

RankScheduler::RankScheduler(const ConfigDoc& doc, const std::vector<workload::Trace>& traces,
                             const std::vector<std::string>& files, const ReplayOptions& options,
                             int gpus)
    : gpus_(gpus), options_(options), sims_(doc, options, gpus), ranks_(traces.size()) {
  for (size_t r = 0; r < traces.size(); ++r) build_rank(static_cast<int>(r), traces[r], files[r]);
  groups_ = match_collectives(ranks_);
  p2p_ = match_p2p(ranks_);
}

void RankScheduler::build_rank(int r, const workload::Trace& t, const std::string& file) {
  Rank& k = ranks_[static_cast<size_t>(r)];
  k.trace = &t;
  k.file = &file;
  k.g = build_graph(t);
  resolve_groups(k, r, gpus_);
  k.partner = find_pairs(t, k.g, static_cast<uint64_t>(gpus_));
  unfuse_subgroups(k);
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

void RankScheduler::run() {
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
    if (gi < 0) {
      place_single(r, u);
      release(r, u, ready);
      continue;
    }
    Group& grp = groups_[static_cast<size_t>(gi)];
    if (++grp.arrived < static_cast<int>(grp.member.size())) continue;
    place_group(grp);
    for (const auto& [dr, du] : grp.member) release(dr, du, ready);
  }
  refuse_stuck();
}

bool RankScheduler::unsimulated_op(const Rank& k, size_t i) const {
  return !k.named_group[i] && unsimulated(k.trace->ops[i], gpus_);
}

// The earliest start of unit u of rank r: its members' preds' ends, plus the leader's idle.
double RankScheduler::ready_time(const Rank& k, int u) const {
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

void RankScheduler::place_single(int r, int u) {
  Rank& k = ranks_[static_cast<size_t>(r)];
  const Op& op = at(k.trace->ops, u);
  const double start = ready_time(k, u);
  if (unsimulated_op(k, static_cast<size_t>(u))) {
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
  if (at(k.named_group, u) && workload::is_point_to_point(op.kind)) {
    const int peer = k.peer_rank(u, r);
    const std::vector<int> pair =
        op.kind == OpKind::kSend ? std::vector<int>{r, peer} : std::vector<int>{peer, r};
    at(k.out, u) = describe(op, start, sims_.on_gpus(op, pair).total_us,
                            fmt::format("p2p (GPU {} to {})", pair[0], pair[1]));
    return;
  }
  at(k.out, u) = describe(op, start, sims_.single(op), model_of(op.kind));
}

// A collective across its group: it starts when the last member reaches it (a fused pair's
// collective part: when the last member's GEMM ends) and runs for the longest member's time.
void RankScheduler::place_group(const Group& grp) {
  const size_t n = grp.member.size();
  std::vector<double> ready(n), gemm_end(n);
  std::vector<Simulations::Times> times(n);
  double last = 0, longest = 0;
  for (size_t m = 0; m < n; ++m) {
    const auto [r, u] = grp.member[m];
    const Rank& k = ranks_[static_cast<size_t>(r)];
    ready[m] = ready_time(k, u);
    if (at(k.partner, u) >= 0) {
      const auto [gi, ai] = fused_ops(k, u);
      times[m] = sims_.fused(at(k.trace->ops, gi), at(k.trace->ops, ai).kind);
    } else if (grp.whole) {
      times[m] = {sims_.single(at(k.trace->ops, u)), 0};
    } else {
      times[m] = sims_.on_gpus(at(k.trace->ops, u), grp.gpus);
    }
    gemm_end[m] = ready[m] + times[m].gemm_us;
    last = std::max(last, gemm_end[m]);
    longest = std::max(longest, times[m].total_us - times[m].gemm_us);
  }
  for (size_t m = 0; m < n; ++m) {
    const auto [r, u] = grp.member[m];
    Rank& k = ranks_[static_cast<size_t>(r)];
    const bool fused = at(k.partner, u) >= 0;
    int comm = u;
    if (fused) {
      const auto [gi, ai] = fused_ops(k, u);
      at(k.out, gi) = describe(at(k.trace->ops, gi), ready[m], times[m].gemm_us, "fused");
      at(k.out, gi).fused_with = at(k.trace->ops, ai).id;
      comm = ai;
    }
    const Op& op = at(k.trace->ops, comm);
    const std::string model =
        fused       ? std::string("fused")
        : grp.whole ? model_of(op.kind)
                    : fmt::format("{} on GPUs [{}]", model_of(op.kind), fmt::join(grp.gpus, ", "));
    at(k.out, comm) = describe(op, gemm_end[m], last + longest - gemm_end[m], model);
    if (fused) at(k.out, comm).fused_with = at(k.trace->ops, fused_ops(k, u).first).id;
    at(k.out, comm).wait_us = last - gemm_end[m];
  }
}

void RankScheduler::release(int r, int u, std::deque<std::pair<int, int>>& ready) {
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

// Units never placed: a collective some member never reaches, or a recv whose send waits for it.
void RankScheduler::refuse_stuck() const {
  for (size_t r = 0; r < ranks_.size(); ++r) {
    const Rank& k = ranks_[r];
    for (size_t i = 0; i < k.placed.size(); ++i) {
      const int u = k.unit(static_cast<int>(i));
      if (u != static_cast<int>(i) || k.placed[i]) continue;
      const int gi = k.group[i];
      fail_op(k, static_cast<int>(r), u,
              gi >= 0 ? fmt::format("never runs: collective #{} waits for a rank that, through "
                                    "its deps and streams, waits for this rank (the ranks issue "
                                    "their collectives in different orders); reorder the ops",
                                    gi)
                      : "never runs: it waits, through its deps, streams and a recv from "
                        "another rank, for itself (a cycle across ranks); reorder the ops");
    }
  }
}

}  // namespace t3sim::system::replay_detail
