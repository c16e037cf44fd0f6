#include "models/collectives/fold.h"

#include <functional>
#include <map>
#include <string>
#include <tuple>

#include "models/common/mirror.h"

namespace t3sim::collectives {
namespace {

using common::FoldError;

// A connection is named by who sends on it: (sender GPU, sender lane's index among that GPU's
// lanes, index of the first op that sends on it within the lane, fan-out position).
using ConnKey = std::tuple<int, uint32_t, uint32_t, uint16_t>;

struct Index {
  common::GpuRotation rot;
  int n = 0;
  std::vector<std::vector<uint32_t>> lanes_of;  // per GPU, lane ids in schedule order
  std::vector<uint32_t> local;                  // lane id -> index among its GPU's lanes
  std::vector<uint32_t> op_lane;                // op id -> lane id
  std::map<ConnKey, uint32_t> by_key;
  std::vector<ConnKey> key;  // conn id -> key

  uint32_t rotate(uint32_t c, int by) const {
    ConnKey k = key[c];
    std::get<0>(k) = rot.add(std::get<0>(k), by);
    const auto it = by_key.find(k);
    if (it == by_key.end()) {
      throw FoldError("connection " + std::to_string(c) + " has no counterpart rotated by " +
                      std::to_string(by));
    }
    return it->second;
  }
};

Index index(const Schedule& s, const common::GpuRotation& rot) {
  const int n = rot.size();
  Index ix;
  ix.rot = rot;
  ix.n = n;
  ix.lanes_of.resize(static_cast<size_t>(n));
  ix.local.resize(s.lanes.size());
  ix.op_lane.resize(s.ops.size());
  for (uint32_t l = 0; l < s.lanes.size(); ++l) {
    const int g = s.lanes[l].gpu;
    if (g < 0 || g >= n) throw FoldError("lane on GPU " + std::to_string(g) + " outside the group");
    ix.local[l] = static_cast<uint32_t>(ix.lanes_of[static_cast<size_t>(g)].size());
    ix.lanes_of[static_cast<size_t>(g)].push_back(l);
    for (uint32_t i = 0; i < s.lanes[l].num_ops; ++i) ix.op_lane[s.lanes[l].first_op + i] = l;
  }
  if (s.conn_first.size() != s.conns.size() + 1) throw FoldError("schedule is not finalized");
  ix.key.resize(s.conns.size());
  for (uint32_t c = 0; c < s.conns.size(); ++c) {
    if (s.conn_first[c] == s.conn_first[c + 1]) throw FoldError("connection without sends");
    const uint32_t id = s.send_ops[s.conn_first[c]];
    const Op& op = s.ops[id];
    uint16_t fan = 0;
    while (fan < op.sends && s.send_conn(op, fan) != c) ++fan;
    const uint32_t l = ix.op_lane[id];
    ix.key[c] = ConnKey{s.lanes[l].gpu, ix.local[l], id - s.lanes[l].first_op, fan};
    ix.by_key.emplace(ix.key[c], c);
  }
  return ix;
}

// GPU g's lane lg against its representative r's lane lr (models/common/mirror.h: rep, shift).
void check_lane(const Schedule& s, const Index& ix, int g, uint32_t lr, uint32_t lg) {
  const Lane& a = s.lanes[lr];
  const Lane& b = s.lanes[lg];
  const int r = a.gpu;
  const int back = ix.rot.neg(ix.rot.shift(g));
  const std::string where = "GPU " + std::to_string(g) + " lane " + std::to_string(ix.local[lg]);
  if (a.channel != b.channel || a.num_ops != b.num_ops) throw FoldError(where + " differs");
  for (uint32_t i = 0; i < a.num_ops; ++i) {
    const Op& x = s.ops[a.first_op + i];
    const Op& y = s.ops[b.first_op + i];
    if (x.bytes != y.bytes || x.flags != y.flags || x.sends != y.sends || x.recvs != y.recvs ||
        x.phase != y.phase || x.stride != y.stride) {
      throw FoldError(where + " op " + std::to_string(i) + " differs from GPU " +
                      std::to_string(r) + "'s");
    }
    if (x.stride != 0 && x.recvs > 0) throw FoldError("per-peer receive addressing");
    if ((x.dep == kNone) != (y.dep == kNone)) throw FoldError(where + " dependencies differ");
    if (x.dep != kNone) {
      const uint32_t dx = ix.op_lane[x.dep], dy = ix.op_lane[y.dep];
      if (s.lanes[dx].gpu != r || s.lanes[dy].gpu != g || ix.local[dx] != ix.local[dy] ||
          x.dep - s.lanes[dx].first_op != y.dep - s.lanes[dy].first_op) {
        throw FoldError(where + " depends on another GPU or a different op");
      }
    }
    for (uint16_t k = 0; k < x.sends; ++k) {
      if (ix.rotate(s.send_conn(y, k), back) != s.send_conn(x, k)) {
        throw FoldError(where + " sends on an unrotated connection");
      }
    }
    for (uint16_t k = 0; k < x.recvs; ++k) {
      if (ix.rotate(s.recv_conn(y, k), back) != s.recv_conn(x, k)) {
        throw FoldError(where + " receives on an unrotated connection");
      }
    }
  }
}

}  // namespace

Schedule fold_schedule(const Schedule& s, const common::GpuRotation& rot) {
  const int gpus = rot.size();
  if (gpus < 1 || rot.nodes < 1) throw FoldError("no GPUs");
  const Index ix = index(s, rot);
  for (int g = rot.reps(); g < gpus; ++g) {
    const int r = rot.rep(g);
    const auto& lanes_r = ix.lanes_of[static_cast<size_t>(r)];
    const auto& lanes = ix.lanes_of[static_cast<size_t>(g)];
    if (lanes.size() != lanes_r.size()) {
      throw FoldError("GPU " + std::to_string(g) + " has " + std::to_string(lanes.size()) +
                      " lanes, GPU " + std::to_string(r) + " has " +
                      std::to_string(lanes_r.size()));
    }
    for (size_t j = 0; j < lanes_r.size(); ++j) check_lane(s, ix, g, lanes_r[j], lanes[j]);
  }
  std::vector<uint32_t> kept;  // the representatives' lanes in schedule order
  for (uint32_t l = 0; l < s.lanes.size(); ++l) {
    if (s.lanes[l].gpu < rot.reps()) kept.push_back(l);
  }
  return fold_onto_reps(s, kept, rot, [&](uint32_t c, int by) { return ix.rotate(c, by); });
}

Schedule fold_onto_reps(const Schedule& s, const std::vector<uint32_t>& kept,
                        const common::GpuRotation& rot,
                        const std::function<uint32_t(uint32_t, int)>& rotate) {
  // Connection c of sender s is its representative's, rotated by shift(s).
  const auto back = [&](uint32_t c) { return rot.neg(rot.shift(s.conns[c].src)); };
  for (uint32_t c = 0; c < s.conns.size(); ++c) {
    const Conn& cn = s.conns[c];
    const Conn& r = s.conns[rotate(c, back(c))];
    if (r.src != rot.rep(cn.src) || r.dst != rot.add(cn.dst, back(c))) {
      throw FoldError("connection " + std::to_string(c) + " does not rotate onto GPU " +
                      std::to_string(rot.rep(cn.src)));
    }
  }
  Schedule f;
  std::vector<uint32_t> conn_id(s.conns.size(), kNone);
  for (uint32_t c = 0; c < s.conns.size(); ++c) {
    if (s.conns[c].src >= rot.reps()) continue;
    conn_id[c] = static_cast<uint32_t>(f.conns.size());
    Conn cn = s.conns[c];
    cn.send_lane = kNone;
    cn.recv_lane = kNone;
    f.conns.push_back(cn);
  }
  std::vector<uint32_t> op_id(s.ops.size(), kNone);
  std::vector<int> op_gpu;  // folded op -> its GPU
  for (const uint32_t l : kept) {
    if (s.lanes[l].gpu >= rot.reps()) throw FoldError("a kept lane is not a representative's");
    Lane lane = s.lanes[l];
    lane.first_op = static_cast<uint32_t>(f.ops.size());
    for (uint32_t i = 0; i < lane.num_ops; ++i) {
      const uint32_t id = s.lanes[l].first_op + i;
      const Op& src = s.ops[id];
      Op op = src;
      op_id[id] = static_cast<uint32_t>(f.ops.size());
      op.dep = src.dep == kNone ? kNone : op_id[src.dep];
      op.send_list = static_cast<uint32_t>(f.conn_refs.size());
      for (uint16_t k = 0; k < src.sends; ++k) f.conn_refs.push_back(conn_id[s.send_conn(src, k)]);
      op.recv_list = static_cast<uint32_t>(f.conn_refs.size());
      for (uint16_t k = 0; k < src.recvs; ++k) {
        const uint32_t c = s.recv_conn(src, k);
        f.conn_refs.push_back(conn_id[rotate(c, back(c))]);
      }
      if (src.dep != kNone && op.dep == kNone) throw FoldError("dependency on a later op");
      if (op.dep != kNone && op_gpu[op.dep] != lane.gpu) throw FoldError("dependency across GPUs");
      f.ops.push_back(op);
      op_gpu.push_back(lane.gpu);
    }
    f.lanes.push_back(lane);
  }
  f.finalize();
  return f;
}

std::vector<uint64_t> fold_offsets(const Schedule& s, const common::GpuRotation& rot) {
  if (rot.reps() != 1) throw FoldError("per-GPU offsets of a fold onto several GPUs");
  const Index ix = index(s, rot);
  const auto n = static_cast<size_t>(rot.size());
  std::vector<uint64_t> out;
  const auto& lanes0 = ix.lanes_of[0];
  for (size_t j = 0; j < lanes0.size(); ++j) {
    for (uint32_t k = 0; k < s.lanes[lanes0[j]].num_ops; ++k) {
      for (size_t r = 0; r < n; ++r) {
        const auto& lanes = ix.lanes_of[r];
        if (j >= lanes.size() || k >= s.lanes[lanes[j]].num_ops) {
          throw FoldError("GPU " + std::to_string(r) + " has fewer ops than GPU 0");
        }
        out.push_back(s.ops[s.lanes[lanes[j]].first_op + k].offset);
      }
    }
  }
  return out;
}

}  // namespace t3sim::collectives
