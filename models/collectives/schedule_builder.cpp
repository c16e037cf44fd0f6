#include "models/collectives/schedule_builder.h"

#include <algorithm>
#include <string>

#include "models/collectives/fold_stream.h"
#include "sim/errors.h"

namespace t3sim::collectives {

uint64_t loop_count(uint64_t total, uint64_t channels, uint64_t parts, uint64_t chunk) {
  const uint64_t loop_size = saturating_mul(saturating_mul(channels, parts), chunk);
  return total / loop_size + (total % loop_size != 0 ? 1 : 0);
}

std::vector<Loop> make_loops(uint64_t total, uint64_t channels, uint64_t parts, uint64_t chunk) {
  const uint64_t count = loop_count(total, channels, parts, chunk);
  check_schedule_size(count, count);
  std::vector<Loop> loops;
  loops.reserve(count);
  const uint64_t loop_size = channels * parts * chunk;
  for (uint64_t grid = 0; grid < total; grid += loop_size) {
    const uint64_t even = round_up(div_up(total - grid, channels * parts), kChunkAlign);
    loops.push_back(Loop{grid, std::min(chunk, even)});
  }
  return loops;
}

NodeShape node_shape(const Geometry& g, const std::string& algo, int min_nodes) {
  const int n = static_cast<int>(g.ranks.size());
  const int per = g.gpus_per_node == 0 ? n : static_cast<int>(g.gpus_per_node);
  if (per <= 0 || n % per != 0 || n / per < min_nodes) {
    throw ConfigError("collectives", "/gpus_per_node",
                      algo + " needs gpus_per_node dividing the " + std::to_string(n) +
                          " GPUs into at least " + std::to_string(min_nodes) + " nodes");
  }
  for (int i = 0; i < n; ++i) {
    if (g.ranks[static_cast<size_t>(i)] / per != g.ranks[static_cast<size_t>(i - i % per)] / per) {
      throw ConfigError("collectives", "/gpus_per_node",
                        algo + " needs each node's GPUs to be consecutive in the group");
    }
  }
  return NodeShape{per, n / per};
}

ScheduleBuilder::ScheduleBuilder(const Geometry& g) : g_(g) {
  if (g.fold != nullptr) fold_ = std::make_unique<FoldStream>(*g.fold);
}

ScheduleBuilder::~ScheduleBuilder() = default;

void ScheduleBuilder::expect(uint64_t lanes, uint64_t chunks_per_lane) const {
  const uint64_t chunks = saturating_mul(lanes, chunks_per_lane);
  const auto n = static_cast<uint64_t>(size());
  const uint64_t stored_lanes =
      g_.fold == nullptr || n == 0 ? lanes : div_up(saturating_mul(lanes, g_.fold->reps()), n);
  check_schedule_size(
      saturating_mul(saturating_mul(stored_lanes, chunks_per_lane), g_.slices_per_chunk), chunks);
}

uint32_t ScheduleBuilder::connect(int src_rank, int dst_rank) {
  Conn c;
  c.src_rank = src_rank;
  c.dst_rank = dst_rank;
  c.src = gpu(src_rank);
  c.dst = gpu(dst_rank);
  if (g_.gpus_per_node > 0) {
    const int per = static_cast<int>(g_.gpus_per_node);
    c.inter_node = c.src / per != c.dst / per;
  }
  s_.conns.push_back(c);
  return static_cast<uint32_t>(s_.conns.size() - 1);
}

void ScheduleBuilder::close_lane() {
  if (!lane_open_) return;
  Lane& l = s_.lanes.back();
  l.num_ops = static_cast<uint32_t>(s_.ops.size()) - l.first_op;
  lane_open_ = false;
}

void ScheduleBuilder::open_lane(int rank, uint32_t channel) {
  close_lane();
  dropping_ = false;
  if (fold_) {
    fold_->open_lane(gpu(rank), channel);
    dropping_ = !fold_->storing();
    if (dropping_) return;
  }
  s_.lanes.push_back(Lane{gpu(rank), rank, channel, static_cast<uint32_t>(s_.ops.size()), 0});
  lane_open_ = true;
}

uint32_t ScheduleBuilder::emit(uint8_t flags, Phase phase, uint64_t offset, uint64_t bytes,
                               uint64_t stride, uint32_t send_list, uint32_t recv_list,
                               uint16_t sends, uint16_t recvs, uint32_t dep) {
  Op op;
  op.offset = offset;
  op.stride = stride;
  op.bytes = bytes;
  op.send_list = send_list;
  op.recv_list = recv_list;
  op.sends = sends;
  op.recvs = recvs;
  op.flags = flags;
  op.phase = phase;
  op.dep = dep;
  if (s_.ops.size() >= kMaxScheduleOps) check_schedule_size(s_.ops.size() + 1, 0);
  for (uint16_t k = 0; k < sends; ++k) {
    Conn& c = s_.conns[s_.conn_refs[send_list + k]];
    c.max_bytes = std::max(c.max_bytes, bytes);
  }
  s_.ops.push_back(op);
  return static_cast<uint32_t>(s_.ops.size() - 1);
}

uint32_t ScheduleBuilder::chunk_stored(uint8_t flags, Phase phase, uint64_t offset, uint64_t bytes,
                                       std::span<const uint32_t> sends,
                                       std::span<const uint32_t> recvs, uint64_t stride,
                                       uint32_t dep) {
  if (!lane_open_) throw ModelError("collectives", "schedule op emitted without an open lane");
  const uint32_t handle_dep = dep;
  if (fold_ && dep != kNone) dep = fold_->real(dep);
  const auto send_list = static_cast<uint32_t>(s_.conn_refs.size());
  s_.conn_refs.insert(s_.conn_refs.end(), sends.begin(), sends.end());
  const auto recv_list = static_cast<uint32_t>(s_.conn_refs.size());
  s_.conn_refs.insert(s_.conn_refs.end(), recvs.begin(), recvs.end());
  const uint32_t spc = g_.slices_per_chunk;
  const uint64_t per =
      std::max(round_up(div_up(bytes, spc), kChunkAlign), round_up(g_.slice_floor, kChunkAlign));
  uint32_t last = kNone;
  for (uint32_t i = 0; i < spc; ++i) {
    const uint64_t at = static_cast<uint64_t>(i) * per;
    last = emit(flags, phase, offset + at, clamp_len(bytes, at, per), stride, send_list, recv_list,
                static_cast<uint16_t>(sends.size()), static_cast<uint16_t>(recvs.size()),
                i == 0 ? dep : kNone);
  }
  if (fold_) return fold_->chunk(flags, phase, bytes, stride, sends, recvs, handle_dep, last);
  return last;
}

Schedule ScheduleBuilder::take() {
  close_lane();
  if (fold_) return fold_->fold(std::move(s_));
  s_.finalize();
  return std::move(s_);
}

namespace {
void claim(uint32_t& owner, uint32_t lane, uint32_t conn, const char* what) {
  if (owner != kNone && owner != lane) {
    throw ModelError("collectives", "connection " + std::to_string(conn) + ": two lanes " + what +
                                        " on it (lanes " + std::to_string(owner) + " and " +
                                        std::to_string(lane) + ")");
  }
  owner = lane;
}
}  // namespace

void Schedule::finalize() {
  const size_t nc = conns.size();
  std::vector<uint32_t> nsend(nc, 0);
  std::vector<uint32_t> nrecv(nc, 0);
  for (const Op& op : ops) {
    for (uint16_t k = 0; k < op.sends; ++k) ++nsend[send_conn(op, k)];
    for (uint16_t k = 0; k < op.recvs; ++k) ++nrecv[recv_conn(op, k)];
  }
  conn_first.assign(nc + 1, 0);
  for (size_t c = 0; c < nc; ++c) {
    if (nsend[c] != nrecv[c]) {
      throw ModelError("collectives", "connection " + std::to_string(c) + " (gpu" +
                                          std::to_string(conns[c].src) + " -> gpu" +
                                          std::to_string(conns[c].dst) + ") has " +
                                          std::to_string(nsend[c]) + " sends but " +
                                          std::to_string(nrecv[c]) + " receives");
    }
    conn_first[c + 1] = conn_first[c] + nsend[c];
  }
  send_ops.assign(conn_first[nc], kNone);
  recv_ops.assign(conn_first[nc], kNone);
  std::vector<uint32_t> si(conn_first.begin(), conn_first.end() - 1);
  std::vector<uint32_t> ri = si;
  for (uint32_t l = 0; l < lanes.size(); ++l) {  // a connection's order is its lane's order
    for (uint32_t id = lanes[l].first_op; id < lanes[l].first_op + lanes[l].num_ops; ++id) {
      const Op& op = ops[id];
      for (uint16_t k = 0; k < op.sends; ++k) {
        const uint32_t c = send_conn(op, k);
        claim(conns[c].send_lane, l, c, "sends");
        send_ops[si[c]++] = id;
      }
      for (uint16_t k = 0; k < op.recvs; ++k) {
        const uint32_t c = recv_conn(op, k);
        claim(conns[c].recv_lane, l, c, "receives");
        recv_ops[ri[c]++] = id;
      }
    }
  }
}

}  // namespace t3sim::collectives
