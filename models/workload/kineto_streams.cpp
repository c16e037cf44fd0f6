#include "models/workload/kineto_streams.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "models/workload/kineto_comms.h"
#include "models/workload/trace.h"
#include "sim/errors.h"

namespace t3sim::workload {
namespace {

std::map<std::int64_t, int> stream_numbers(const std::vector<KinetoPending>& pending,
                                           const std::string& file) {
  std::set<std::int64_t> compute;
  std::set<std::int64_t> comm;
  for (const KinetoPending& p : pending) {
    (is_collective(p.op.kind) || is_comm_kernel(p.op.name) ? comm : compute).insert(p.cuda_stream);
  }
  for (std::int64_t s : comm) compute.erase(s);
  std::map<std::int64_t, int> numbers;
  int next = 2;
  const auto assign = [&](const std::set<std::int64_t>& group, int first) {
    for (std::int64_t s : group) numbers[s] = s == *group.begin() ? first : next++;
  };
  if (compute.size() + comm.size() > static_cast<std::size_t>(kMaxStream) + 1) {
    throw ConfigError(file, "/traceEvents",
                      fmt::format("GPU events on {} CUDA streams; a t3sim trace holds at most {} "
                                  "(import a shorter profile)",
                                  compute.size() + comm.size(), kMaxStream + 1));
  }
  assign(compute, kComputeStream);
  assign(comm, kCommStream);
  return numbers;
}

}  // namespace

KinetoStreamTiming assign_kineto_streams(std::vector<KinetoPending>& pending, bool infer_cross,
                                         bool keep_idle, const std::string& file) {
  const std::map<std::int64_t, int> numbers = stream_numbers(pending, file);
  KinetoStreamTiming timing;
  timing.streams = static_cast<std::int64_t>(numbers.size());
  std::map<std::int64_t, std::vector<std::size_t>> on_stream;           // pending indices so far
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> waited;  // (stream, other) -> pos
  const double t0 = pending.front().start_us;
  double t_end = t0;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    KinetoPending& p = pending[i];
    t_end = std::max(t_end, p.end_us);
    p.op.stream = numbers.at(p.cuda_stream);
    std::vector<std::size_t>& mine = on_stream[p.cuda_stream];
    double ready = t0;
    if (!mine.empty()) {
      p.op.deps.push_back(pending[mine.back()].op.id);
      ready = std::max(ready, pending[mine.back()].end_us);
    }
    for (const auto& [other, ops] : on_stream) {
      if (!infer_cross || other == p.cuda_stream) continue;
      std::size_t pos = ops.size();
      while (pos > 0 && pending[ops[pos - 1]].end_us > p.start_us) --pos;
      if (pos == 0) continue;
      ready = std::max(ready, pending[ops[pos - 1]].end_us);
      const auto key = std::make_pair(p.cuda_stream, other);
      if (waited.contains(key) && waited[key] >= pos) continue;
      waited[key] = pos;
      p.op.deps.push_back(pending[ops[pos - 1]].op.id);
    }
    const double idle = std::max(0.0, p.start_us - ready);
    timing.idle_us += idle;
    if (keep_idle) p.op.idle_us = std::min(idle, kMaxMicroseconds);
    mine.push_back(i);
  }
  timing.span_us = t_end - t0;
  return timing;
}

}  // namespace t3sim::workload
