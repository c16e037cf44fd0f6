#include "models/collectives/nvls_executor.h"

#include <algorithm>
#include <string>

#include "models/collectives/schedule_builder.h"
#include "sim/errors.h"

namespace t3sim::collectives {
namespace {

constexpr uint32_t kNvlsStreamInFlight = 1024;  // per stream; the CU window is the real limit
constexpr unsigned kNvlsPieceShift = 24;
constexpr unsigned kStepShift = 20;
constexpr uint64_t kGpuMask = (1ULL << kStepShift) - 1;

}  // namespace

NvlsExecutor::NvlsExecutor(ExecContext ctx)
    : CollectiveExecutor(ctx.machine.size()), x_(std::move(ctx)) {
  const Schedule& s = x_.schedule;
  LaneGroup group = lane_group(s, x_.machine.size());
  group_ = std::move(group.gpus);
  pos_ = std::move(group.pos);
  channels_ = std::max(channels_, group.channels);
  n_ = x_.fold_gpus > 0 ? static_cast<size_t>(x_.fold_gpus) : group_.size();
  if (n_ > kGpuMask) throw ModelError(x_.path, "NVLS group too large");
  if (!x_.machine.fabric->has_switch_reduction()) {
    throw ConfigError(x_.path, "/algo",
                      "NVLS needs a switch that reduces (fabric.switch.reduce_bandwidth, NVLink "
                      "SHARP); use ring or hierarchical");
  }
  std::vector<int> members = group_;  // folded: the group GPU 0 stands for
  for (size_t g = members.size(); g < n_; ++g) members.push_back(static_cast<int>(g));
  for (int a : members) {
    for (int b : members) {
      if (a != b && x_.machine.fabric->hops(a, b) != 2) {
        throw ConfigError(x_.path, "/algo",
                          "NVLS needs every GPU of the group on one NVSwitch (GPU " +
                              std::to_string(a) + " -> " + std::to_string(b) + " is " +
                              std::to_string(x_.machine.fabric->hops(a, b)) +
                              " hops); use ring or hierarchical");
      }
    }
  }
  piece_ = x_.lib.piece.count();
  for (int g : group_) {
    const gpu::GpuNode& node = x_.machine.gpus[static_cast<size_t>(g)];
    const auto txn = static_cast<uint32_t>(node.spec->txn.count());
    const auto id = static_cast<uint16_t>(node.id);
    window_ = node.spec->cu_window.count();
    for (uint32_t c = 0; c < channels_; ++c) {
      cu_streams_.push_back(
          std::make_unique<gpu::MemStream>(*node.hbm, txn, kNvlsStreamInFlight, id));
    }
    switch_reads_.push_back(
        std::make_unique<gpu::MemStream>(*node.hbm, txn, kNvlsStreamInFlight, id));
    cast_writes_.push_back(
        std::make_unique<gpu::MemStream>(*node.hbm, txn, kNvlsStreamInFlight, id));
  }
  inflight_.assign(group_.size() * channels_, 0);
  cu_lanes_.resize(inflight_.size());
  lanes_.resize(s.lanes.size());
  for (uint32_t l = 0; l < s.lanes.size(); ++l) {
    const Lane& lane = s.lanes[l];
    lanes_[l].cu =
        static_cast<uint32_t>(pos_[static_cast<size_t>(lane.gpu)]) * channels_ + lane.channel;
    cu_lanes_[lanes_[l].cu].push_back(l);
  }
}

NvlsExecutor::~NvlsExecutor() = default;

void NvlsExecutor::start() {
  for (int g : group_) x_.machine.gpus[static_cast<size_t>(g)].cus->acquire(channels_);
  x_.sim.call_at<NvlsExecutor, &NvlsExecutor::launch>(x_.sim.now() + x_.proto.base_latency, this,
                                                      0);
}

void NvlsExecutor::launch(uint64_t) {
  lanes_left_ = lanes_.size() + 1;  // +1: the loop below cannot finish the collective early
  for (uint32_t l = 0; l < lanes_.size(); ++l) advance(l);
  lane_end(~uint64_t{0});
}

int NvlsExecutor::other(int gpu) const {
  if (x_.fold_gpus > 0) return (gpu + 1) % x_.fold_gpus;
  const size_t p = static_cast<size_t>(pos_[static_cast<size_t>(gpu)]);
  return group_[(p + 1) % group_.size()];
}

uint64_t NvlsExecutor::tag(uint32_t piece, Step s, int gpu) const {
  return (static_cast<uint64_t>(piece) << kNvlsPieceShift) |
         (static_cast<uint64_t>(s) << kStepShift) | static_cast<uint64_t>(gpu);
}

gpu::Access NvlsExecutor::access(int gpu, uint64_t off, uint64_t bytes, common::MemCmd cmd,
                                 common::TrafficClass cls, uint64_t t) {
  gpu::Access a;
  a.addr = x_.data_addr[static_cast<size_t>(gpu)] + off;
  a.bytes = bytes;
  a.cmd = cmd;
  a.cls = cls;
  a.done = this;
  a.tag = t;
  return a;
}

void NvlsExecutor::advance(uint32_t l) {
  LaneState& ls = lanes_[l];
  const Lane& lane = x_.schedule.lanes[l];
  while (ls.op < lane.num_ops) {
    const uint32_t id = lane.first_op + ls.op;
    const Op& op = x_.schedule.ops[id];
    while (ls.issued < op.bytes) {
      const uint64_t payload = std::min(piece_, op.bytes - ls.issued);
      uint64_t& inflight = inflight_[ls.cu];
      if (inflight > 0 && inflight + payload > window_) {
        ls.waiting = true;
        return;
      }
      uint32_t p = 0;
      if (free_pieces_.empty()) {
        p = static_cast<uint32_t>(pieces_.size());
        pieces_.emplace_back();
      } else {
        p = free_pieces_.back();
        free_pieces_.pop_back();
      }
      pieces_[p] = Piece{l, id, op.offset + ls.issued, payload, 0, true};
      inflight += payload;
      ls.issued += payload;
      ++ls.outstanding;
      if (op.flags & kRecv) {  // ld_reduce: the request reaches the switch and fans out to HBMs
        const Duration request = x_.machine.fabric->path_latency(lane.gpu, other(lane.gpu));
        x_.sim.call_at<NvlsExecutor, &NvlsExecutor::issue_reduce>(x_.sim.now() + request, this, p);
      } else {  // all-gather: the CU loads its own piece
        cu_streams_[ls.cu]->submit(access(lane.gpu, pieces_[p].off, payload, common::MemCmd::kRead,
                                          read_class(op.phase), tag(p, kRead, lane.gpu)));
      }
    }
    ++ls.op;  // stores are posted: the next chunk's loads need not wait for them to land
    ls.issued = 0;
  }
  if (ls.outstanding > 0 || ls.done) return;  // the closing flag fences every store
  ls.done = true;
  x_.sim.call_at<NvlsExecutor, &NvlsExecutor::lane_end>(x_.sim.now() + x_.proto.step_latency, this,
                                                        l);
}

// Folded run: what GPU i does for GPU 0's piece is, by symmetry, what GPU 0 does for GPU -i's
// piece, so the access lands in GPU 0's memory at rank -i's offset of the same op.
uint64_t NvlsExecutor::folded_off(const Piece& pc, size_t i) const {
  const Op& op = x_.schedule.ops[pc.op];
  const size_t r = (n_ - i) % n_;
  return x_.fold_offsets[static_cast<size_t>(pc.op) * n_ + r] + (pc.off - op.offset);
}

// The full run names GPU i's switch segment for GPU 0 by the pair (i, 0), GPU 0's own by (0,
// other(0)); rotated by -i onto GPU 0 that is the peer -i, or other(0) for GPU 0 itself.
int NvlsExecutor::folded_peer(int i) const { return i == 0 ? other(0) : x_.fold_gpus - i; }

void NvlsExecutor::issue_reduce(uint64_t piece) {
  const auto p = static_cast<uint32_t>(piece);
  const Op& op = x_.schedule.ops[pieces_[p].op];
  if (x_.fold_gpus > 0) {
    for (size_t i = 0; i < n_; ++i) {
      switch_reads_[0]->submit(access(0, folded_off(pieces_[p], i), pieces_[p].payload,
                                      common::MemCmd::kRead, read_class(op.phase),
                                      tag(p, kUp, static_cast<int>(i))));
    }
    return;
  }
  for (size_t i = 0; i < group_.size(); ++i) {
    switch_reads_[i]->submit(access(group_[i], pieces_[p].off, pieces_[p].payload,
                                    common::MemCmd::kRead, read_class(op.phase),
                                    tag(p, kUp, group_[i])));
  }
}

// A read for the switch finished (kUp: send the copy up), the CU's own load finished (kRead), or
// a multicast store landed in HBM (kLanded).
void NvlsExecutor::access_done(uint64_t t) {
  const auto p = static_cast<uint32_t>(t >> kNvlsPieceShift);
  const auto step = static_cast<Step>((t >> kStepShift) & 7);
  const int g = static_cast<int>(t & kGpuMask);
  const Piece& pc = pieces_[p];
  const int req = x_.schedule.lanes[pc.lane].gpu;
  if (step == kUp) {  // the copy goes up into the switch's reduction for the requester
    const uint64_t wire = x_.proto.wire_bytes(pc.payload);
    wire_ += wire;
    common::SwitchReduction r;
    r.dst = req;
    r.contributions = static_cast<uint32_t>(n_);
    r.bytes = Bytes(wire);
    r.rx = this;
    r.tag = tag(p, kReduced, req);
    r.down_from = other(req);
    if (x_.fold_gpus > 0) {  // GPU g's copy for GPU 0 = GPU 0's copy for GPU -g, its own pair
      x_.machine.fabric->reduce_in_switch(0, folded_peer(g), r, nullptr, 0);
      return;
    }
    // the requester's own copy also goes through the switch (multimem reads every GPU's copy)
    x_.machine.fabric->reduce_in_switch(g, g == req ? other(req) : req, r, nullptr, 0);
    return;
  }
  if (step == kRead) {
    loaded(p);
    return;
  }
  received_[static_cast<size_t>(x_.fold_gpus > 0 ? 0 : g)] += pc.payload;
  if (++pieces_[p].count == (x_.schedule.ops[pc.op].flags & kSend ? n_ : 1)) {
    piece_done(p);
  }
}

void NvlsExecutor::delivered(uint64_t t) {
  const auto p = static_cast<uint32_t>(t >> kNvlsPieceShift);
  const auto step = static_cast<Step>((t >> kStepShift) & 7);
  const int g = static_cast<int>(t & kGpuMask);
  Piece& pc = pieces_[p];
  const int req = x_.schedule.lanes[pc.lane].gpu;
  switch (step) {
    case kReduced:  // the switch's reduced copy reached the requester
      wire_ += x_.proto.wire_bytes(pc.payload);
      loaded(p);
      return;
    case kCastUp: {  // the switch replicates the store to every GPU of the group
      const uint64_t wire = x_.proto.wire_bytes(pc.payload);
      if (x_.fold_gpus > 0) {              // GPU d's copy lands at GPU 0 as GPU -d's copy would
        for (size_t d = 0; d < n_; ++d) {  // GPU 0 -> d's copy = GPU -d -> 0's, its own pair
          wire_ += wire;
          x_.machine.fabric->send_segment(folded_peer(static_cast<int>(d)), 0,
                                          common::PathSegment::kFromSwitch, Bytes(wire), this,
                                          tag(p, kCastDown, static_cast<int>(d)));
        }
        return;
      }
      for (int d : group_) {
        wire_ += wire;
        x_.machine.fabric->send_segment(d == req ? other(req) : req, d,
                                        common::PathSegment::kFromSwitch, Bytes(wire), this,
                                        tag(p, kCastDown, d));
      }
      return;
    }
    case kCastDown:
      if (x_.fold_gpus > 0) {
        cast_writes_[0]->submit(access(0, folded_off(pc, static_cast<size_t>(g)), pc.payload,
                                       common::MemCmd::kWrite, write_class(Phase::kAllGather),
                                       tag(p, kLanded, 0)));
        return;
      }
      cast_writes_[static_cast<size_t>(pos_[static_cast<size_t>(g)])]->submit(
          access(g, pc.off, pc.payload, common::MemCmd::kWrite, write_class(Phase::kAllGather),
                 tag(p, kLanded, g)));
      return;
    default:
      throw ModelError(x_.path, "NVLS: unexpected fabric delivery");
  }
}

// The piece's data (reduced, or the local copy) is in the CU: its window share frees up and the
// store is posted (multicast) or written locally (reduce-scatter).
void NvlsExecutor::loaded(uint32_t p) {
  release_window(p);
  Piece& pc = pieces_[p];
  const Op& op = x_.schedule.ops[pc.op];
  const int req = x_.schedule.lanes[pc.lane].gpu;
  if (op.flags & kSend) {
    sent_[static_cast<size_t>(req)] += pc.payload * n_;
    wire_ += x_.proto.wire_bytes(pc.payload);
    x_.machine.fabric->send_segment(req, other(req), common::PathSegment::kToSwitch,
                                    Bytes(x_.proto.wire_bytes(pc.payload)), this,
                                    tag(p, kCastUp, req));
    return;
  }
  sent_[static_cast<size_t>(req)] += pc.payload;
  cu_streams_[lanes_[pc.lane].cu]->submit(access(req, pc.off, pc.payload, common::MemCmd::kWrite,
                                                 write_class(op.phase), tag(p, kLanded, req)));
}

void NvlsExecutor::release_window(uint32_t p) {
  if (!pieces_[p].charged) return;
  pieces_[p].charged = false;
  const uint32_t cu = lanes_[pieces_[p].lane].cu;
  inflight_[cu] -= pieces_[p].payload;
  for (uint32_t l : cu_lanes_[cu]) {
    if (!lanes_[l].waiting) continue;
    lanes_[l].waiting = false;
    advance(l);
  }
}

void NvlsExecutor::piece_done(uint32_t p) {
  const Piece pc = pieces_[p];
  free_pieces_.push_back(p);
  --lanes_[pc.lane].outstanding;
  advance(pc.lane);
}

void NvlsExecutor::lane_end(uint64_t) {
  if (--lanes_left_ > 0) return;
  for (int g : group_) x_.machine.gpus[static_cast<size_t>(g)].cus->release(channels_);
  finished_ = true;
  if (x_.done) x_.done->executor_done();
}

std::string NvlsExecutor::progress() const {
  std::string out;
  for (uint32_t l = 0; l < lanes_.size() && out.size() < 400; ++l) {
    const Lane& lane = x_.schedule.lanes[l];
    if (lanes_[l].done) continue;
    out += (out.empty() ? "" : "; ") + std::string("lane ") + std::to_string(l) + " (gpu" +
           std::to_string(lane.gpu) + " ch" + std::to_string(lane.channel) + ") at op " +
           std::to_string(lanes_[l].op) + "/" + std::to_string(lane.num_ops);
  }
  return out;
}

}  // namespace t3sim::collectives
