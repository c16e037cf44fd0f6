#include "models/system/replay_rank_summary.h"

#include <algorithm>
#include <utility>

namespace t3sim::system::replay_detail {
namespace {

using Spans = std::vector<std::pair<double, double>>;

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

}  // namespace

RankReplay summarise_rank(const std::vector<ReplayOp>& ops, const std::vector<char>& unsimulated) {
  RankReplay out;
  ReplayResult& r = out.result;
  r.ops = ops;
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
    if (unsimulated[i]) {
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

}  // namespace t3sim::system::replay_detail
