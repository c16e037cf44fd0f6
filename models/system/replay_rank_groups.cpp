#include "models/system/replay_rank_groups.h"

#include <algorithm>
#include <span>

#include <fmt/format.h>

#include "models/workload/trace_groups.h"
#include "sim/errors.h"

namespace t3sim::system::replay_detail {

int Rank::peer_rank(int op, int self) const {
  const std::vector<int>& m = at(members, op);
  const auto mine = std::find(m.begin(), m.end(), self) - m.begin();
  const int g = static_cast<int>(m.size());
  return m[static_cast<size_t>((static_cast<int>(mine) + at(trace->ops, op).peer) % g)];
}

void fail_op(const Rank& k, int r, int op, const std::string& what) {
  throw ConfigError(*k.file, "/ops/" + std::to_string(op),
                    fmt::format("rank {}: op '{}' {}", r, at(k.trace->ops, op).id, what));
}

void resolve_groups(Rank& k, int rank, int gpus) {
  const auto& ops = k.trace->ops;
  k.members.assign(ops.size(), {});
  k.named_group.assign(ops.size(), 0);
  std::vector<int> every(static_cast<size_t>(gpus));
  for (int i = 0; i < gpus; ++i) every[static_cast<size_t>(i)] = i;
  for (size_t i = 0; i < ops.size(); ++i) {
    const workload::Op& op = ops[i];
    if (!workload::is_collective(op.kind)) continue;
    const int oi = static_cast<int>(i);
    const int size = op.tp_group.value_or(k.trace->metadata.tp.value_or(0));
    const std::span<const int> named = workload::op_group_ranks(*k.trace, op);
    if (named.empty()) {
      if (size != gpus) {
        fail_op(k, rank, oi,
                fmt::format("runs on a group of {} ranks, but the system has {} GPUs and the "
                            "trace does not say which ranks (replay the ranks' Kineto profiles, "
                            "which name each group, or a system with {} GPUs)",
                            size, gpus, size));
      }
      k.members[i] = every;
      continue;
    }
    const std::vector<int> m(named.begin(), named.end());
    std::vector<int> sorted = m;
    std::sort(sorted.begin(), sorted.end());
    const bool repeats = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
    if (static_cast<int>(m.size()) != size || repeats || sorted.front() < 0 ||
        sorted.back() >= gpus || !std::binary_search(sorted.begin(), sorted.end(), rank)) {
      fail_op(k, rank, oi,
              fmt::format("names the process group [{}] of tp_group {}: it must hold {} distinct "
                          "ranks, this rank ({}) among them, each below the system's {} GPUs",
                          fmt::join(m, ", "), size, size, rank, gpus));
    }
    k.members[i] = m;
    k.named_group[i] = m != every;
  }
}

void unfuse_subgroups(Rank& k) {
  for (size_t i = 0; i < k.partner.size(); ++i) {
    const int p = k.partner[i];
    if (p < 0) continue;
    if (k.named_group[i] || at(k.named_group, p)) {
      k.partner[i] = -1;
      at(k.partner, p) = -1;
    }
  }
}

}  // namespace t3sim::system::replay_detail
