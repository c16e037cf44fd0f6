#include "models/system/replay_p2p.h"

#include <deque>
#include <map>
#include <tuple>

namespace t3sim::system::replay_detail {
namespace {

using workload::OpKind;

// Whether `to` is reachable from `from` over succs, fused partners and the matches made so far.
bool reaches(int from, int to, const std::vector<std::vector<int>>& succs,
             const std::vector<int>& partner, const std::vector<std::vector<int>>& matched) {
  std::vector<char> seen(succs.size(), 0);
  std::vector<int> todo{from};
  seen[static_cast<size_t>(from)] = 1;
  const auto visit = [&](int next) {
    if (next < 0 || seen[static_cast<size_t>(next)]) return;
    seen[static_cast<size_t>(next)] = 1;
    todo.push_back(next);
  };
  while (!todo.empty()) {
    const int x = todo.back();
    todo.pop_back();
    if (x == to) return true;
    for (int s : succs[static_cast<size_t>(x)]) visit(s);
    visit(partner[static_cast<size_t>(x)]);
    for (int r : matched[static_cast<size_t>(x)]) visit(r);  // a match: send -> recv
  }
  return false;
}

}  // namespace

std::vector<int> match_sends(const workload::Trace& t, const std::vector<std::vector<int>>& succs,
                             const std::vector<int>& partner) {
  using Key = std::tuple<int, int64_t, int>;  // peer offset of the send, bytes, group
  std::map<Key, std::deque<int>> sends;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const workload::Op& op = t.ops[i];
    if (op.kind == OpKind::kSend) {
      sends[{op.peer, op.bytes, op.tp_group.value_or(0)}].push_back(static_cast<int>(i));
    }
  }
  std::vector<int> match(t.ops.size(), -1);
  std::vector<std::vector<int>> matched(t.ops.size());  // per send, its matched recvs
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const workload::Op& op = t.ops[i];
    if (op.kind != OpKind::kRecv) continue;
    const int group = op.tp_group.value_or(0);
    const auto it = sends.find({group - op.peer, op.bytes, group});
    if (it == sends.end() || it->second.empty()) continue;
    const int send = it->second.front();
    it->second.pop_front();
    if (reaches(static_cast<int>(i), send, succs, partner, matched)) continue;
    match[i] = send;
    matched[static_cast<size_t>(send)].push_back(static_cast<int>(i));
  }
  return match;
}

}  // namespace t3sim::system::replay_detail
