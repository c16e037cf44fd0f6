#include "models/collectives/cu_executor.h"

#include <algorithm>
#include <string>

#include "models/collectives/schedule_builder.h"
#include "sim/errors.h"

namespace t3sim::collectives {
namespace {

constexpr uint32_t kCuStreamInFlight = 1024;  // per-CU MemStream cap (the window is the real limit)
constexpr uint64_t kRemoteBit = 1ULL << 19;
constexpr uint64_t kFanMask = kRemoteBit - 1;
constexpr unsigned kCuPieceShift = 20;
constexpr uint64_t kProxyBit = 1ULL << 63;  // network proxy posts: conn << 24 | payload
constexpr unsigned kProxyConnShift = 24;
constexpr uint64_t kProxyBytesMask = (1ULL << kProxyConnShift) - 1;

}  // namespace

CuExecutor::CuExecutor(ExecContext ctx)
    : CollectiveExecutor(ctx.machine.size()), x_(std::move(ctx)) {
  const Schedule& s = x_.schedule;
  piece_ = x_.lib.piece.count();
  piece_slot_ = round_up(x_.proto.line_bytes(piece_), kChunkAlign);
  LaneGroup group = lane_group(s, x_.machine.size());
  const std::vector<int>& pos = group.pos;
  const uint32_t channels = group.channels;
  group_gpus_ = std::move(group.gpus);
  cus_.resize(group_gpus_.size() * channels);
  for (size_t i = 0; i < cus_.size(); ++i) {
    const gpu::GpuNode& node = x_.machine.gpus[static_cast<size_t>(group_gpus_[i / channels])];
    streams_.push_back(
        std::make_unique<gpu::MemStream>(*node.hbm, static_cast<uint32_t>(node.spec->txn.count()),
                                         kCuStreamInFlight, static_cast<uint16_t>(node.id)));
    cus_[i] = CuState{node.id, node.spec->cu_window.count(), 0, streams_.back().get(), 0};
  }
  lanes_.resize(s.lanes.size());
  dep_waiters_.resize(s.lanes.size());
  op_lane_.resize(s.ops.size());
  cu_lanes_.resize(cus_.size());
  for (uint32_t l = 0; l < s.lanes.size(); ++l) {
    const Lane& lane = s.lanes[l];
    lanes_[l].cu =
        static_cast<uint32_t>(pos[static_cast<size_t>(lane.gpu)]) * channels + lane.channel;
    std::fill_n(op_lane_.begin() + lane.first_op, lane.num_ops, l);
    cu_lanes_[lanes_[l].cu].push_back(l);
  }
  conns_.resize(s.conns.size());
  for (size_t c = 0; c < s.conns.size(); ++c) {
    const Conn& cn = s.conns[c];
    ConnState& cs = conns_[c];
    cs.slot_bytes = div_up(cn.max_bytes, piece_) * piece_slot_;
    if (cs.slot_bytes > 0) {  // in the receiver's memory (GPU 0's own in a folded schedule)
      const auto rx = static_cast<size_t>(s.lanes[cn.recv_lane].gpu);
      cs.slot_base = x_.machine.gpus[rx].alloc->allocate(cs.slot_bytes * x_.proto.slots);
    }
    if (cn.inter_node && cs.slot_bytes > 0) {
      cs.stage_base = x_.machine.gpus[static_cast<size_t>(cn.src)].alloc->allocate(cs.slot_bytes *
                                                                                   x_.proto.slots);
    }
    cs.flag = x_.machine.fabric->path_latency(cn.src, cn.dst) +
              (cn.inter_node ? x_.lib.inter_node_latency : Duration());
  }
  share_links();
}

CuExecutor::~CuExecutor() = default;

void CuExecutor::start() {
  const uint32_t channels =
      static_cast<uint32_t>(cus_.size() / std::max<size_t>(1, group_gpus_.size()));
  for (int g : group_gpus_) x_.machine.gpus[static_cast<size_t>(g)].cus->acquire(channels);
  x_.sim.call_at<CuExecutor, &CuExecutor::launch>(x_.sim.now() + x_.proto.base_latency, this, 0);
}

void CuExecutor::launch(uint64_t) {
  lanes_left_ = lanes_.size();
  if (lanes_left_ == 0) {
    ++lanes_left_;
    lane_finished();
    return;
  }
  for (uint32_t l = 0; l < lanes_.size(); ++l) advance(l);
}

bool CuExecutor::can_begin(uint32_t lane, const Op& op) {
  const Schedule& s = x_.schedule;
  if (op.dep != kNone) {
    const uint32_t dl = op_lane_[op.dep];
    if (lanes_[dl].op <= op.dep - s.lanes[dl].first_op) {
      dep_waiters_[dl].push_back(lane);
      return false;
    }
  }
  const bool whole_slice = x_.proto.fenced || op.bytes == 0;
  for (uint16_t k = 0; k < op.recvs && whole_slice; ++k) {
    ConnState& cs = conns_[s.recv_conn(op, k)];
    if (cs.published <= cs.consumed) {
      cs.recv_waiting = true;
      return false;
    }
  }
  for (uint16_t k = 0; k < op.sends; ++k) {
    ConnState& cs = conns_[s.send_conn(op, k)];
    if (cs.started - cs.credited >= x_.proto.slots) {
      cs.send_waiting = true;
      return false;
    }
  }
  return true;
}

void CuExecutor::begin(const Op& op) {
  for (uint16_t k = 0; k < op.sends; ++k) ++conns_[x_.schedule.send_conn(op, k)].started;
}

bool CuExecutor::piece_ready(uint32_t, const Op& op, uint64_t end) {
  if (x_.proto.fenced) return true;
  for (uint16_t k = 0; k < op.recvs; ++k) {
    ConnState& cs = conns_[x_.schedule.recv_conn(op, k)];
    if (cs.visible < cs.recv_pos + end) {
      cs.recv_waiting = true;
      return false;
    }
  }
  return true;
}

void CuExecutor::advance(uint32_t l) {
  LaneState& ls = lanes_[l];
  const Lane& lane = x_.schedule.lanes[l];
  if (ls.syncing || ls.op >= lane.num_ops) return;
  const uint32_t id = lane.first_op + ls.op;
  const Op& op = x_.schedule.ops[id];
  if (!ls.begun) {
    if (!can_begin(l, op)) return;
    begin(op);
    ls.begun = true;
    ls.began = x_.sim.now();
  }
  const uint64_t fan = std::max<uint64_t>({1, op.sends, op.recvs});
  if (direct_recv(op)) {  // the peer stored the slice in place: only its flag is waited for
    ls.issued = op.bytes;
    ls.completed = op.bytes;
  }
  while (ls.issued < op.bytes) {
    const uint64_t payload = std::min(piece_, op.bytes - ls.issued);
    if (!piece_ready(l, op, ls.issued + payload)) return;
    CuState& cu = cus_[ls.cu];
    if (cu.inflight > 0 && cu.inflight + payload * fan > cu.window) {
      ls.in_window_queue = true;
      return;
    }
    if (paced(l, op, payload)) return;
    const uint64_t off = ls.issued;
    ls.issued += payload;
    start_piece(l, id, off, payload);
  }
  if (ls.completed < op.bytes) return;
  ls.syncing = true;
  x_.sim.call_at<CuExecutor, &CuExecutor::op_synced>(x_.sim.now() + x_.proto.step_latency, this, l);
}

uint32_t CuExecutor::alloc_piece() {
  if (free_pieces_.empty()) {
    pieces_.emplace_back();
    return static_cast<uint32_t>(pieces_.size() - 1);
  }
  const uint32_t p = free_pieces_.back();
  free_pieces_.pop_back();
  return p;
}

void CuExecutor::start_piece(uint32_t lane, uint32_t op_id, uint64_t off, uint64_t payload) {
  const Op& op = x_.schedule.ops[op_id];
  const uint64_t charge = payload * std::max<uint64_t>({1, op.sends, op.recvs});
  const uint32_t p = alloc_piece();
  pieces_[p] = Piece{lane, op_id, off, payload, charge, 0, false};
  cus_[lanes_[lane].cu].inflight += charge;
  issue_reads(p);
}

gpu::Access CuExecutor::access(uint64_t addr, uint64_t bytes, common::MemCmd cmd,
                               common::TrafficClass cls, uint32_t piece) {
  gpu::Access a;
  a.addr = addr;
  a.bytes = bytes;
  a.cmd = cmd;
  a.cls = cls;
  a.done = this;
  a.tag = static_cast<uint64_t>(piece) << kCuPieceShift;
  return a;
}

uint64_t CuExecutor::slot_addr(uint32_t conn, uint32_t seq, uint64_t off) const {
  const ConnState& cs = conns_[conn];
  return cs.slot_base + (seq % x_.proto.slots) * cs.slot_bytes + (off / piece_) * piece_slot_;
}

void CuExecutor::issue_reads(uint32_t p) {
  const Schedule& s = x_.schedule;
  const Piece pc = pieces_[p];
  const Op& op = s.ops[pc.op];
  const int g = s.lanes[pc.lane].gpu;
  gpu::MemStream& stream = *cus_[lanes_[pc.lane].cu].stream;
  std::vector<gpu::Access>& reads = scratch_;  // built before any submit (no re-entry)
  reads.clear();
  auto read = [&](uint64_t addr, uint64_t bytes) {
    reads.push_back(access(addr, bytes, common::MemCmd::kRead, read_class(op.phase), p));
  };
  if (op.flags & kReadLocal) {
    if (op.stride != 0 && op.sends > 0) {
      for (uint16_t k = 0; k < op.sends; ++k) {
        read(data_address(x_, g, op, s.conns[s.send_conn(op, k)].dst_rank) + pc.off, pc.payload);
      }
    } else {
      read(data_address(x_, g, op, 0) + pc.off, pc.payload);
    }
  }
  if (op.flags & kRecv) {
    for (uint16_t k = 0; k < op.recvs; ++k) {
      const uint32_t c = s.recv_conn(op, k);
      read(slot_addr(c, conns_[c].consumed, pc.off), x_.proto.line_bytes(pc.payload));
    }
  }
  pieces_[p].pending = static_cast<uint32_t>(reads.size());
  if (reads.empty()) {
    issue_writes(p);
    return;
  }
  for (const gpu::Access& a : reads) stream.submit(a);
}

void CuExecutor::issue_writes(uint32_t p) {
  const Schedule& s = x_.schedule;
  const Piece pc = pieces_[p];
  const Op& op = s.ops[pc.op];
  const int g = s.lanes[pc.lane].gpu;
  std::vector<gpu::Access>& writes = scratch_;
  writes.clear();
  auto write = [&](uint64_t addr) {
    writes.push_back(access(addr, pc.payload, common::MemCmd::kWrite, write_class(op.phase), p));
  };
  if (op.flags & kWriteLocal) {
    if (op.stride != 0 && op.recvs > 0 && !(op.flags & kReadLocal)) {
      for (uint16_t k = 0; k < op.recvs; ++k) {
        write(data_address(x_, g, op, s.conns[s.recv_conn(op, k)].src_rank) + pc.off);
      }
    } else {
      write(data_address(x_, g, op, 0) + pc.off);
    }
  }
  const uint16_t remote = (op.flags & kSend) ? op.sends : 0;
  pieces_[p].writing = true;
  pieces_[p].pending = static_cast<uint32_t>(writes.size()) + remote;
  if (pieces_[p].pending == 0) {
    piece_done(p);
    return;
  }
  // The piece's loads are done and its stores are being posted: its registers free up. The window
  // bounds loads in flight (Little's law, gpu.cu_window); the stores' landing is waited for at the
  // end of the slice (the fence before the flag), not by holding the window through the link
  // queue, where a slice's short last piece would wait out every other channel's traffic.
  const uint32_t cu = lanes_[pc.lane].cu;
  const uint64_t charge = pieces_[p].charge;
  pieces_[p].charge = 0;
  gpu::MemStream& stream = *cus_[cu].stream;
  for (const gpu::Access& a : writes) stream.submit(a);
  for (uint16_t k = 0; k < remote; ++k) send_piece(p, s.send_conn(op, k), k);
  cus_[cu].inflight -= charge;
  wake_window(cu);
}

// One piece to one peer. NVLink: the CU's stores go straight into the peer's slot. Network: the CU
// stores into a local staging slot and NCCL's proxy (NIC) forwards it, outside the CU's window.
void CuExecutor::send_piece(uint32_t p, uint32_t c, uint32_t k) {
  const Piece pc = pieces_[p];
  const Op& op = x_.schedule.ops[pc.op];
  const Conn& cn = x_.schedule.conns[c];
  const uint64_t line = x_.proto.line_bytes(pc.payload);
  // GPU-link packet headers; a network hop's overhead is the fabric NIC's own efficiency.
  const uint64_t headers = cn.inter_node ? 0 : x_.proto.wire_bytes(pc.payload) - line;
  const uint32_t seq = conns_[c].started - 1;
  gpu::RemoteAccess r;
  r.src = cn.src;
  r.dst = cn.dst;
  r.addr = slot_addr(c, seq, pc.off);
  r.bytes = line;
  r.cmd = common::MemCmd::kWrite;
  r.cls = write_class(op.phase);
  r.done = this;
  r.tag = (static_cast<uint64_t>(p) << kCuPieceShift) | kRemoteBit | k;
  if (cn.inter_node) {
    const uint64_t stage = conns_[c].stage_base + (slot_addr(c, seq, pc.off) - conns_[c].slot_base);
    cus_[lanes_[pc.lane].cu].stream->submit(access(stage, line, common::MemCmd::kWrite, r.cls, p));
    r.tag = kProxyBit | (static_cast<uint64_t>(c) << kProxyConnShift) | pc.payload;
  }
  sent_[static_cast<size_t>(cn.src)] += pc.payload;
  wire_ += line + headers;
  // Link packet headers occupy the link but are never stored: a data-less message ahead of the
  // data on the same (FIFO) path.
  if (headers > 0) x_.machine.fabric->send(cn.src, cn.dst, Bytes(headers), this, 0);
  x_.machine.remote->post(r);
}

// Network data landed: the proxy publishes whole slices in order, after their sender synced.
void CuExecutor::proxy_landed(uint32_t c, uint64_t payload) {
  const Schedule& s = x_.schedule;
  ConnState& cs = conns_[c];
  received_[static_cast<size_t>(s.conns[c].dst)] += payload;
  cs.proxy_landed += payload;
  if (!x_.proto.fenced) {
    cs.visible += payload;
    if (cs.recv_waiting) {
      cs.recv_waiting = false;
      advance(s.conns[c].recv_lane);
    }
  }
  proxy_publish(c);
}

void CuExecutor::proxy_publish(uint32_t c) {
  const Schedule& s = x_.schedule;
  ConnState& cs = conns_[c];
  while (cs.proxied < cs.synced) {
    const uint64_t bytes = s.ops[s.send_ops[s.conn_first[c] + cs.proxied]].bytes;
    if (cs.proxy_landed < cs.proxy_cum + bytes) return;
    cs.proxy_cum += bytes;
    ++cs.proxied;
    x_.sim.call_at<CuExecutor, &CuExecutor::publish>(x_.sim.now() + cs.flag, this, c);
  }
}

void CuExecutor::access_done(uint64_t tag) {
  if (tag & kProxyBit) {
    proxy_landed(static_cast<uint32_t>((tag & ~kProxyBit) >> kProxyConnShift),
                 tag & kProxyBytesMask);
    return;
  }
  const auto p = static_cast<uint32_t>(tag >> kCuPieceShift);
  if (tag & kRemoteBit) {
    const Piece& pc = pieces_[p];
    const Op& op = x_.schedule.ops[pc.op];
    const uint32_t c = x_.schedule.send_conn(op, static_cast<uint32_t>(tag & kFanMask));
    received_[static_cast<size_t>(x_.schedule.conns[c].dst)] += pc.payload;
    if (!x_.proto.fenced) {  // LL/LL128: the flags travel with the data
      ConnState& cs = conns_[c];
      cs.visible += pc.payload;
      if (cs.recv_waiting) {
        cs.recv_waiting = false;
        advance(x_.schedule.conns[c].recv_lane);  // may grow pieces_: no references kept
      }
    }
  }
  if (--pieces_[p].pending > 0) return;
  if (pieces_[p].writing) {
    piece_done(p);
  } else {
    issue_writes(p);
  }
}

void CuExecutor::piece_done(uint32_t p) {
  const Piece pc = pieces_[p];
  free_pieces_.push_back(p);
  LaneState& ls = lanes_[pc.lane];
  cus_[ls.cu].inflight -= pc.charge;
  ls.completed += pc.payload;
  const Op& op = x_.schedule.ops[pc.op];
  if (ls.completed == op.bytes) advance(pc.lane);
  wake_window(lanes_[pc.lane].cu);
}

void CuExecutor::wake_window(uint32_t cu) {
  const std::vector<uint32_t>& lanes = cu_lanes_[cu];
  const size_t n = lanes.size();
  const uint32_t first = cus_[cu].rr;
  cus_[cu].rr = static_cast<uint32_t>((first + 1) % std::max<size_t>(n, 1));
  for (size_t i = 0; i < n; ++i) {
    const uint32_t l = lanes[(first + i) % n];
    if (!lanes_[l].in_window_queue) continue;
    lanes_[l].in_window_queue = false;
    advance(l);
  }
}

}  // namespace t3sim::collectives
