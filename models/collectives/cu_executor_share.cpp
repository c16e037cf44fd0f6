// CU executor, link sharing (the library's "fair_share"): the k CUs (channel CTAs) whose stores
// cross one link share it equally, because the link interleaves their stores; a CU never injects
// faster than 1/k of that link's bandwidth, and time it spends on a step's synchronisation is
// lost, not taken up by the other channels, whose steps run in lock-step with it. Without it, all
// channels' stores to one peer queue in one FIFO flow, and a channel that posted its slice first
// finishes first, so the channels drift apart and hide each other's step latency.
// Contract: a sending piece starts no earlier than the pace of every (CU, link) it sends over.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "models/collectives/cu_executor.h"

namespace t3sim::collectives {

// A connection's first link: its own (src, dst) link on a direct hop, else the source's uplink
// toward paths of that length and bandwidth (a switch port, or the NIC for network hops).
void CuExecutor::share_links() {
  if (!x_.lib.fair_share) return;
  const Schedule& s = x_.schedule;
  const common::FabricApi& f = *x_.machine.fabric;
  using Link = std::tuple<int, int, int, uint64_t>;
  auto link = [&](const Conn& cn) {
    const int hops = f.hops(cn.src, cn.dst);
    return hops == 1 ? Link{cn.src, cn.dst, 1, 0}
                     : Link{cn.src, -1, hops, f.path_bandwidth(cn.src, cn.dst).bytes_per_second()};
  };
  auto used = [&](const Conn& cn) { return cn.max_bytes > 0 && cn.src != cn.dst; };
  std::vector<Link> links(s.conns.size());  // each used connection's first link
  std::map<Link, std::set<uint32_t>> cus;   // the CUs sending over each link
  std::map<std::pair<Link, uint32_t>, uint32_t> pacers;
  for (size_t c = 0; c < s.conns.size(); ++c) {
    const Conn& cn = s.conns[c];
    if (!used(cn)) continue;
    links[c] = link(cn);
    cus[links[c]].insert(lanes_[cn.send_lane].cu);
  }
  for (size_t c = 0; c < s.conns.size(); ++c) {
    const Conn& cn = s.conns[c];
    if (!used(cn)) continue;
    const Link& l = links[c];
    conns_[c].share = f.path_bandwidth(cn.src, cn.dst) / cus[l].size();
    const auto [it, fresh] =
        pacers.try_emplace({l, lanes_[cn.send_lane].cu}, static_cast<uint32_t>(pace_at_.size()));
    if (fresh) pace_at_.emplace_back();
    conns_[c].pacer = it->second;
  }
}

bool CuExecutor::paced(uint32_t l, const Op& op, uint64_t payload) {
  if (!x_.lib.fair_share || !(op.flags & kSend) || op.sends == 0) return false;
  const Schedule& s = x_.schedule;
  const Tick now = x_.sim.now();
  Tick ready = now;
  for (uint16_t k = 0; k < op.sends; ++k) {
    const ConnState& cs = conns_[s.send_conn(op, k)];
    if (cs.share.bytes_per_second() > 0) ready = std::max(ready, pace_at_[cs.pacer]);
  }
  if (now < ready) {
    if (!lanes_[l].pace_waiting) {
      lanes_[l].pace_waiting = true;
      x_.sim.call_at<CuExecutor, &CuExecutor::pace_wake>(ready, this, l);
    }
    return true;
  }
  for (uint16_t k = 0; k < op.sends; ++k) {
    const uint32_t c = s.send_conn(op, k);
    const ConnState& cs = conns_[c];
    if (cs.share.bytes_per_second() == 0) continue;
    // Network hops: the fabric's NIC efficiency stands for their headers (as in send_piece).
    const uint64_t wire =
        s.conns[c].inter_node ? x_.proto.line_bytes(payload) : x_.proto.wire_bytes(payload);
    pace_at_[cs.pacer] = now + transfer_time(Bytes(wire), cs.share);
  }
  return false;
}

void CuExecutor::pace_wake(uint64_t l) {
  lanes_[l].pace_waiting = false;
  advance(static_cast<uint32_t>(l));
}

}  // namespace t3sim::collectives
