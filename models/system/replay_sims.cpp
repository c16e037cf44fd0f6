#include "models/system/replay_sims.h"

#include <algorithm>
#include <numeric>

#include "models/collectives/kinds.h"
#include "models/system/library_collective.h"
#include "models/system/scenario.h"
#include "models/system/sublayer.h"

namespace t3sim::system::replay_detail {

using workload::Op;
using workload::OpKind;

namespace {

constexpr uint64_t kMemoryProbeBytes = uint64_t{1} << 30;

uint64_t gemm_key(const Op& op) {
  return uint64_t{elem_bytes(op)} | static_cast<uint64_t>(precision_of(op)) << 8;
}

// Records the time of the last completed access of a memory op.
class LastDone : public gpu::AccessDone {
 public:
  explicit LastDone(Simulator& sim) : sim_(sim) {}
  void access_done(uint64_t) override { last = sim_.now(); }
  Tick last{};

 private:
  Simulator& sim_;
};

double simulate_memory(const ConfigDoc& doc, uint64_t bytes) {
  Scenario sc(doc, 1, nullptr);
  LastDone done(sc.sim());
  const uint64_t parts[2] = {(bytes + 1) / 2, bytes / 2};  // reads, writes
  for (int i = 0; i < 2; ++i) {
    if (parts[i] == 0) continue;
    gpu::Access a;
    a.addr = sc.machine().gpus[0].alloc->allocate(parts[i]);
    a.bytes = parts[i];
    a.cmd = i == 0 ? common::MemCmd::kRead : common::MemCmd::kWrite;
    a.cls = i == 0 ? common::TrafficClass::kGemmRead : common::TrafficClass::kGemmWrite;
    a.done = &done;
    (i == 0 ? sc.reads(0) : sc.stores(0)).submit(a);
  }
  sc.run();
  return (done.last - Tick{}).to_us();
}

}  // namespace

uint32_t elem_bytes(const Op& op) {
  return static_cast<uint32_t>(
      workload::bytes_per_element(op.dtype.value_or(workload::Dtype::kFp16)));
}

gpu::Precision precision_of(const Op& op) {
  switch (op.dtype.value_or(workload::Dtype::kFp16)) {
    case workload::Dtype::kFp16:
      return gpu::Precision::kFp16;
    case workload::Dtype::kBf16:
      return gpu::Precision::kBf16;
    case workload::Dtype::kTf32:
      return gpu::Precision::kTf32;
    case workload::Dtype::kFp8:
    case workload::Dtype::kInt8:
      return gpu::Precision::kFp8;
    default:
      return gpu::Precision::kFp32;
  }
}

gpu::GemmShape gemm_shape(const Op& op) {
  const workload::GemmShape& s = op.shape;
  return {static_cast<uint64_t>(s.m), static_cast<uint64_t>(s.n), static_cast<uint64_t>(s.k),
          static_cast<uint64_t>(s.batch), precision_of(op)};
}

uint64_t output_bytes(const Op& gemm) {
  const auto s = gemm_shape(gemm);
  return s.m * s.n * s.batch * elem_bytes(gemm);
}

Simulations::Times Simulations::gemm(const Op& op) {
  const auto s = gemm_shape(op);
  return memo({0, s.m, s.n, s.k, gemm_key(op), s.batch}, [&] {
    SublayerSpec spec;
    spec.shape = s;
    spec.elem_bytes = elem_bytes(op);
    const double t = run_piece(doc_, spec, Piece::kGemm).total_us;
    return Times{t, t};
  });
}

Simulations::Times Simulations::fused(const Op& gemm, OpKind collective) {
  const auto s = gemm_shape(gemm);
  const bool rs_only = collective == OpKind::kReduceScatter;
  return memo({rs_only ? 10 : 1, s.m, s.n, s.k, gemm_key(gemm), s.batch}, [&] {
    SublayerSpec spec;
    spec.shape = s;
    spec.elem_bytes = elem_bytes(gemm);
    spec.ar_cus = options_.ar_cus;
    spec.decompose_chunks = options_.decompose_chunks;
    const SublayerResult r = run_sublayer(doc_, spec, options_.mode);
    // Every mode runs the (unfused) all-gather after the reduce-scatter has ended: without it
    // the pair ends when the reduce-scatter does.
    return Times{rs_only ? r.total_us - r.ag_us : r.total_us, r.gemm_us};
  });
}

Simulations::Times Simulations::collective(const Op& op) {
  const std::optional<collectives::Kind> kind = library_kind(op.kind);
  const uint64_t e = elem_bytes(op);
  const bool split = kind && collectives::kind_spec(*kind).split_by_rank;
  const uint64_t unit = split ? e * gpus_ : e;
  const uint64_t bytes = (static_cast<uint64_t>(op.bytes) + unit - 1) / unit * unit;
  const bool ring_runner = op.kind == OpKind::kAllReduce || op.kind == OpKind::kReduceScatter ||
                           op.kind == OpKind::kAllGather;
  if (ring_runner) {  // the sublayer runner's ring collective, as the fused modes run it
    return memo({2 + static_cast<int>(op.kind), bytes, e, 0, 0, 0}, [&] {
      CollectiveJob job;
      job.op = op.kind == OpKind::kAllReduce       ? CollOp::kAllReduce
               : op.kind == OpKind::kReduceScatter ? CollOp::kReduceScatter
                                                   : CollOp::kAllGather;
      job.bytes = bytes;
      job.elem_bytes = static_cast<uint32_t>(e);
      return Times{run_collective(doc_, job).total_us, 0};
    });
  }
  const int root = workload::is_rooted(op.kind) ? op.root : 0;
  // Every rank sends to rank + peer; a recv's peer is its sender, so the ranks send to - peer.
  const int n = static_cast<int>(gpus_);
  const int peer = op.kind == OpKind::kSend   ? op.peer
                   : op.kind == OpKind::kRecv ? (n - op.peer % n) % n
                                              : 0;
  return memo({20 + static_cast<int>(*kind), bytes, e, static_cast<uint64_t>(root),
               static_cast<uint64_t>(peer), 0},
              [&] {
                collectives::CollectiveSpec spec;
                spec.kind = *kind;
                spec.bytes = bytes;
                spec.elem_bytes = static_cast<uint32_t>(e);
                spec.root = root;
                spec.group = peer_group(peer);
                return Times{run_library_collective(doc_, spec), 0};
              });
}

Simulations::Times Simulations::on_gpus(const Op& op, const std::vector<int>& gpus) {
  const collectives::Kind kind = library_kind(op.kind).value();
  const uint64_t e = elem_bytes(op);
  const uint64_t unit = collectives::kind_spec(kind).split_by_rank ? e * gpus.size() : e;
  const uint64_t bytes = (static_cast<uint64_t>(op.bytes) + unit - 1) / unit * unit;
  const int root = workload::is_rooted(op.kind) ? op.root : 0;
  const Key key{30 + static_cast<int>(kind), bytes, e, static_cast<uint64_t>(root), 0, 0};
  const auto it = group_memo_.find({key, gpus});
  if (it != group_memo_.end()) {
    ++hits;
    return it->second;
  }
  ++runs;
  collectives::CollectiveSpec spec;
  spec.kind = kind;
  spec.bytes = bytes;
  spec.elem_bytes = static_cast<uint32_t>(e);
  spec.root = root;
  spec.group = gpus;
  return group_memo_
      .emplace(std::make_pair(key, gpus), Times{run_library_collective(doc_, spec), 0})
      .first->second;
}

std::optional<collectives::Kind> library_kind(OpKind kind) {
  switch (kind) {
    case OpKind::kAllReduce:
      return collectives::Kind::kAllReduce;
    case OpKind::kReduceScatter:
      return collectives::Kind::kReduceScatter;
    case OpKind::kAllGather:
      return collectives::Kind::kAllGather;
    case OpKind::kBroadcast:
      return collectives::Kind::kBroadcast;
    case OpKind::kReduce:
      return collectives::Kind::kReduce;
    case OpKind::kAllToAll:
      return collectives::Kind::kAllToAll;
    case OpKind::kSend:
    case OpKind::kRecv:
      return collectives::Kind::kSendRecv;
    default:
      return std::nullopt;
  }
}

bool peer_reachable(int peer, int gpus) { return std::gcd(peer, gpus) == 1; }

std::vector<int> Simulations::peer_group(int peer) const {
  const int n = static_cast<int>(gpus_);
  std::vector<int> group;
  for (int r = 0, g = 0; r < n; ++r, g = (g + std::max(peer, 1)) % n) group.push_back(g);
  return group;
}

Simulations::Times Simulations::memory(const Op& op) {
  const auto bytes = static_cast<uint64_t>(op.bytes);
  const uint64_t simulated = std::min(bytes, kMemoryProbeBytes);
  const Times probe = memo({9, simulated, 0, 0, 0, 0}, [&] {
    return Times{simulate_memory(doc_, simulated), 0};
  });
  const double scale = static_cast<double>(bytes) / static_cast<double>(simulated);
  return Times{probe.total_us * scale, 0};
}

double Simulations::single(const Op& op) {
  if (op.kind == OpKind::kFixed) return op.duration_us;
  if (op.kind == OpKind::kGemm) return gemm(op).total_us;
  return (op.kind == OpKind::kMemory ? memory(op) : collective(op)).total_us;
}

}  // namespace t3sim::system::replay_detail
