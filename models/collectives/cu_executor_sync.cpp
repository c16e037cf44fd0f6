// CU executor, second half: the end of a slice (step latency, flags, credits), lane completion
// and progress reports. See cu_executor.h.
#include <algorithm>
#include <string>

#include "models/collectives/cu_executor.h"
#include "models/collectives/step_trace.h"

namespace t3sim::collectives {

void CuExecutor::op_synced(uint64_t l) {
  const Schedule& s = x_.schedule;
  LaneState& ls = lanes_[l];
  const Lane& lane = s.lanes[l];
  const Op& op = s.ops[lane.first_op + ls.op];
  if (Timeline* tl = x_.sim.timeline()) trace_step(*tl, lane, op, ls.op, ls.began, x_.sim.now());
  for (uint16_t k = 0; k < op.sends; ++k) {
    const uint32_t c = s.send_conn(op, k);
    if (s.conns[c].inter_node) {  // the proxy flags it once the data has crossed the network
      ++conns_[c].synced;
      proxy_publish(c);
    } else {
      x_.sim.call_at<CuExecutor, &CuExecutor::publish>(x_.sim.now() + conns_[c].flag, this, c);
    }
  }
  for (uint16_t k = 0; k < op.recvs; ++k) {
    const uint32_t c = s.recv_conn(op, k);
    ++conns_[c].consumed;
    conns_[c].recv_pos += op.bytes;
    x_.sim.call_at<CuExecutor, &CuExecutor::credit>(x_.sim.now() + conns_[c].flag, this, c);
  }
  ls.op += 1;
  ls.begun = false;
  ls.syncing = false;
  ls.issued = 0;
  ls.completed = 0;
  std::vector<uint32_t> waiters;
  waiters.swap(dep_waiters_[l]);
  for (uint32_t w : waiters) advance(w);
  if (ls.op == lane.num_ops) {
    lane_finished();
  } else {
    advance(static_cast<uint32_t>(l));
  }
}

bool CuExecutor::direct_recv(const Op& op) const {
  // P2P read mode: NCCL gives unregistered buffers no direct pointers (DirectWrite needs a
  // write-mode connection), so every receive copies out of the sender's buffer.
  if (!x_.lib.p2p_direct || x_.lib.p2p_read || !x_.proto.fenced ||
      op.flags != (kRecv | kWriteLocal)) {
    return false;
  }
  for (uint16_t k = 0; k < op.recvs; ++k) {
    if (x_.schedule.conns[x_.schedule.recv_conn(op, k)].inter_node) return false;
  }
  return true;
}

void CuExecutor::publish(uint64_t c) {
  const Schedule& s = x_.schedule;
  ConnState& cs = conns_[c];
  const Op& op = s.ops[s.send_ops[s.conn_first[c] + cs.published]];
  ++cs.published;
  if (x_.proto.fenced) cs.visible += op.bytes;
  if (cs.recv_waiting) {
    cs.recv_waiting = false;
    advance(s.conns[c].recv_lane);
  }
}

void CuExecutor::credit(uint64_t c) {
  ConnState& cs = conns_[c];
  ++cs.credited;
  if (cs.send_waiting) {
    cs.send_waiting = false;
    advance(x_.schedule.conns[c].send_lane);
  }
}

void CuExecutor::lane_finished() {
  if (--lanes_left_ > 0) return;
  const uint32_t channels =
      static_cast<uint32_t>(cus_.size() / std::max<size_t>(1, group_gpus_.size()));
  for (int g : group_gpus_) x_.machine.gpus[static_cast<size_t>(g)].cus->release(channels);
  finished_ = true;
  if (x_.done) x_.done->executor_done();
}

std::string CuExecutor::progress() const {
  std::string out;
  int shown = 0;
  for (uint32_t l = 0; l < lanes_.size() && shown < 8; ++l) {
    const Lane& lane = x_.schedule.lanes[l];
    if (lanes_[l].op >= lane.num_ops) continue;
    ++shown;
    out += (out.empty() ? "" : "; ") + std::string("lane ") + std::to_string(l) + " (gpu" +
           std::to_string(lane.gpu) + " ch" + std::to_string(lane.channel) + ") at op " +
           std::to_string(lanes_[l].op) + "/" + std::to_string(lane.num_ops) + ", " +
           std::to_string(lanes_[l].completed) + "/" + std::to_string(lanes_[l].issued) + " B" +
           (lanes_[l].begun ? "" : " waiting to begin");
  }
  return out;
}

}  // namespace t3sim::collectives
