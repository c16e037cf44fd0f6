#include "models/system/replay_rank_match.h"

#include <algorithm>
#include <deque>
#include <map>

#include <fmt/format.h>

namespace t3sim::system::replay_detail {
namespace {

using workload::Op;
using workload::OpKind;

bool is_group_op(const Op& op) {
  return workload::is_collective(op.kind) && !workload::is_point_to_point(op.kind);
}

std::string ranks_text(const std::vector<int>& m) {
  return fmt::format("[{}]", fmt::join(m, ", "));
}

}  // namespace

std::vector<Group> match_collectives(std::vector<Rank>& ranks) {
  // Per group (its ranks in group order), per member rank: its collectives on it, in order.
  std::map<std::vector<int>, std::map<int, std::vector<int>>> lists;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const auto& ops = ranks[r].trace->ops;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (is_group_op(ops[i]))
        lists[ranks[r].members[i]][static_cast<int>(r)].push_back(static_cast<int>(i));
    }
  }
  std::vector<Group> groups;
  for (const auto& entry : lists) {
    const std::vector<int>& members = entry.first;
    const auto& per_rank = entry.second;  // a named reference: lambdas may not capture bindings
    const int first = members.front();
    const auto none = std::vector<int>();
    const auto of = [&](int r) -> const std::vector<int>& {
      const auto it = per_rank.find(r);
      return it == per_rank.end() ? none : it->second;
    };
    const std::vector<int>& ref = of(first);
    for (const int r : members) {
      const std::vector<int>& mine = of(r);
      const size_t common = std::min(mine.size(), ref.size());
      for (size_t c = 0; c < common; ++c) {
        const Op& a = at(ranks[static_cast<size_t>(r)].trace->ops, mine[c]);
        const Op& b = at(ranks[static_cast<size_t>(first)].trace->ops, ref[c]);
        if (a.kind == b.kind && a.bytes == b.bytes) continue;
        fail_op(ranks[static_cast<size_t>(r)], r, mine[c],
                fmt::format("is collective #{} of its rank on the group {}, a {} of {} B, but "
                            "rank {}'s #{} ('{}') is a {} of {} B; every member must issue the "
                            "same collectives on a group in the same order (give each rank its "
                            "own trace, in rank order)",
                            c, ranks_text(members), workload::to_string(a.kind), a.bytes, first, c,
                            b.id, workload::to_string(b.kind), b.bytes));
      }
      if (mine.size() != ref.size()) {
        const bool fewer = mine.size() < ref.size();
        const int rank = fewer ? first : r;
        fail_op(
            ranks[static_cast<size_t>(rank)], rank, (fewer ? ref : mine)[common],
            fmt::format("is collective #{} on the group {}, which rank {} never issues ({} "
                        "collectives against {}): the ranks would hang; give matching traces",
                        common, ranks_text(members), fewer ? r : first, mine.size(), ref.size()));
      }
    }
    bool whole = true;
    for (size_t i = 0; i < members.size(); ++i) whole = whole && members[i] == static_cast<int>(i);
    whole = whole && members.size() == ranks.size();
    for (size_t c = 0; c < ref.size(); ++c) {
      Group g;
      g.gpus = members;
      g.whole = whole;
      for (const int r : members) {
        Rank& k = ranks[static_cast<size_t>(r)];
        const int u = k.unit(of(r)[c]);
        g.member.emplace_back(r, u);
        at(k.group, u) = static_cast<int>(groups.size());
      }
      groups.push_back(std::move(g));
    }
  }
  return groups;
}

P2pMatch match_p2p(std::vector<Rank>& ranks) {
  const int n = static_cast<int>(ranks.size());
  P2pMatch out;
  std::map<std::pair<int, int>, std::deque<int>> sends;  // (from, to) -> send ops
  for (int r = 0; r < n; ++r) {
    const Rank& k = ranks[static_cast<size_t>(r)];
    for (size_t i = 0; i < k.trace->ops.size(); ++i) {
      if (k.trace->ops[i].kind != OpKind::kSend) continue;
      sends[{r, k.peer_rank(static_cast<int>(i), r)}].push_back(static_cast<int>(i));
    }
  }
  for (int q = 0; q < n; ++q) {
    Rank& k = ranks[static_cast<size_t>(q)];
    for (size_t i = 0; i < k.trace->ops.size(); ++i) {
      const Op& recv = k.trace->ops[i];
      if (recv.kind != OpKind::kRecv) continue;
      const int from = k.peer_rank(static_cast<int>(i), q);
      auto& queue = sends[{from, q}];
      if (queue.empty()) {
        out.unmatched.emplace_back(q, static_cast<int>(i));
        continue;
      }
      const int send = queue.front();
      queue.pop_front();
      const Op& s = at(ranks[static_cast<size_t>(from)].trace->ops, send);
      if (s.bytes != recv.bytes) {
        fail_op(k, q, static_cast<int>(i),
                fmt::format("receives {} B from rank {}, whose matching send '{}' sends {} B; "
                            "the k-th send to a rank must match its k-th recv from the sender",
                            recv.bytes, from, s.id, s.bytes));
      }
      k.send_of[i] = {from, send};
      ++at(k.waiting, k.unit(static_cast<int>(i)));
      Rank& sender = ranks[static_cast<size_t>(from)];
      at(sender.remote, sender.unit(send)).emplace_back(q, k.unit(static_cast<int>(i)));
      ++out.matched;
    }
  }
  for (const auto& [pair, queue] : sends) {
    for (const int s : queue) out.unmatched.emplace_back(pair.first, s);
  }
  std::sort(out.unmatched.begin(), out.unmatched.end());
  return out;
}

}  // namespace t3sim::system::replay_detail
