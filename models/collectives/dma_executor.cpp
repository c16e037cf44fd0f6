#include "models/collectives/dma_executor.h"

#include <string>

#include "sim/errors.h"

namespace t3sim::collectives {
namespace {
constexpr unsigned kOpShift = 20;  // tag = op << 20 | send index
constexpr uint64_t kDmaFanMask = (1ULL << kOpShift) - 1;
}  // namespace

DmaExecutor::DmaExecutor(ExecContext ctx)
    : CollectiveExecutor(ctx.machine.size()), x_(std::move(ctx)) {
  const Schedule& s = x_.schedule;
  const size_t n = s.ops.size();
  state_.resize(n);
  op_gpu_.resize(n);
  match_first_.assign(n + 1, 0);
  std::vector<uint32_t> ndeps(n + 1, 0);
  for (const Lane& lane : s.lanes) {
    for (uint32_t id = lane.first_op; id < lane.first_op + lane.num_ops; ++id)
      op_gpu_[id] = lane.gpu;
  }
  for (uint32_t id = 0; id < n; ++id) {
    const Op& op = s.ops[id];
    match_first_[id + 1] = match_first_[id] + op.sends;
    state_[id].recv_left = op.recvs;
    if (op.dep != kNone) ++ndeps[op.dep + 1];
    if ((op.flags & kRecv) && (op.flags & kReadLocal) && !x_.machine.has_nmc) {
      throw ConfigError(x_.path, "/collectives/executor",
                        "the DMA executor reduces with near-memory UPDATEs, but this system has no "
                        "NMC (\"nmc\": false): only all-gather can run on DMA engines; use the CU "
                        "executor for reduce-scatter and all-reduce");
    }
  }
  match_.assign(match_first_[n], kNone);
  for (size_t c = 0; c < s.conns.size(); ++c) {
    for (uint32_t i = s.conn_first[c]; i < s.conn_first[c + 1]; ++i) {
      const Op& op = s.ops[s.send_ops[i]];
      for (uint16_t k = 0; k < op.sends; ++k) {
        if (s.send_conn(op, k) == c) match_[match_first_[s.send_ops[i]] + k] = s.recv_ops[i];
      }
    }
  }
  for (size_t i = 1; i <= n; ++i) ndeps[i] += ndeps[i - 1];
  dependents_first_ = ndeps;
  dependents_.assign(ndeps[n], 0);
  for (uint32_t id = 0; id < n; ++id) {
    if (s.ops[id].dep != kNone) dependents_[ndeps[s.ops[id].dep]++] = id;
  }
}

void DmaExecutor::start() {
  ops_left_ = state_.size();
  if (ops_left_ == 0) {
    finished_ = true;
    if (x_.done) x_.done->executor_done();
    return;
  }
  for (uint32_t id = 0; id < state_.size(); ++id) try_start(id);
}

void DmaExecutor::try_start(uint32_t id) {
  OpState& st = state_[id];
  if (st.started || st.recv_left > 0) return;
  const uint32_t dep = x_.schedule.ops[id].dep;
  if (dep != kNone && !state_[dep].done) return;
  start_op(id);
}

gpu::DmaDescriptor DmaExecutor::descriptor(uint32_t id, uint32_t k) const {
  const Schedule& s = x_.schedule;
  const Op& op = s.ops[id];
  const Conn& cn = s.conns[s.send_conn(op, k)];
  const Op& rx = s.ops[match_[match_first_[id] + k]];
  const bool reduce = (rx.flags & kReadLocal) != 0;
  gpu::DmaDescriptor d;
  d.src_addr = data_address(x_, cn.src, op, cn.dst_rank);
  d.dst_gpu = cn.dst;
  d.dst_addr = data_address(x_, cn.dst, rx, reduce ? 0 : cn.src_rank);
  d.bytes = op.bytes;
  d.dst_cmd = reduce ? common::MemCmd::kUpdate : common::MemCmd::kWrite;
  d.read_cls = read_class(op.phase);
  d.write_cls = reduce ? common::TrafficClass::kRsUpdate : write_class(rx.phase);
  // Partial sums the data carries: this GPU's own plus those that arrived by UPDATE.
  d.contrib = static_cast<uint16_t>(state_[id].contrib + ((op.flags & kReadLocal) ? 1 : 0));
  d.done = const_cast<DmaExecutor*>(this);
  d.tag = (static_cast<uint64_t>(id) << kOpShift) | k;
  return d;
}

void DmaExecutor::start_op(uint32_t id) {
  const Op& op = x_.schedule.ops[id];
  OpState& st = state_[id];
  st.started = true;
  const uint16_t sends = (op.flags & kSend) ? op.sends : 0;
  if (sends == 0) {
    op_done(id);
    return;
  }
  st.sends_left = sends;
  gpu::DmaEngines& dma = *x_.machine.gpus[static_cast<size_t>(op_gpu_[id])].dma;
  for (uint16_t k = 0; k < sends; ++k) {
    sent_[static_cast<size_t>(op_gpu_[id])] += op.bytes;
    wire_ += op.bytes;
    if (op.bytes == 0) {  // a flag-only step: nothing to copy
      x_.sim.call_at<DmaExecutor, &DmaExecutor::access_done>(
          x_.sim.now(), this, (static_cast<uint64_t>(id) << kOpShift) | k);
      continue;
    }
    dma.submit(descriptor(id, k));
  }
}

void DmaExecutor::access_done(uint64_t tag) {
  const auto id = static_cast<uint32_t>(tag >> kOpShift);
  landed(id, static_cast<uint32_t>(tag & kDmaFanMask));
  if (--state_[id].sends_left == 0) op_done(id);
}

void DmaExecutor::landed(uint32_t id, uint32_t k) {
  const Schedule& s = x_.schedule;
  const Op& op = s.ops[id];
  received_[static_cast<size_t>(s.conns[s.send_conn(op, k)].dst)] += op.bytes;
  const uint32_t rx = match_[match_first_[id] + k];
  if (s.ops[rx].flags & kReadLocal) {
    state_[rx].contrib = static_cast<uint16_t>(state_[rx].contrib + descriptor(id, k).contrib);
  }
  --state_[rx].recv_left;
  try_start(rx);
}

void DmaExecutor::op_done(uint32_t id) {
  state_[id].done = true;
  for (uint32_t i = dependents_first_[id]; i < dependents_first_[id + 1]; ++i) {
    try_start(dependents_[i]);
  }
  if (--ops_left_ == 0) {
    finished_ = true;
    if (x_.done) x_.done->executor_done();
  }
}

std::string DmaExecutor::progress() const {
  size_t waiting = 0;
  size_t running = 0;
  for (const OpState& st : state_) {
    if (!st.started) ++waiting;
    if (st.started && !st.done) ++running;
  }
  if (waiting == 0 && running == 0) return {};
  return std::to_string(waiting) + " DMA ops waiting for data, " + std::to_string(running) +
         " with descriptors in flight";
}

}  // namespace t3sim::collectives
