#include "models/system/replay_timeline.h"

#include <cmath>
#include <map>
#include <string>

namespace t3sim::system {
namespace {

Tick at_us(double us) { return Tick::from_ps(static_cast<uint64_t>(std::llround(us * 1e6))); }

void record_process(Timeline& tl, int pid, const ReplayResult& r) {
  std::map<std::string, uint64_t> flow_of;  // fused pair -> its arrow (keyed by the GEMM's id)
  for (const ReplayOp& op : r.ops) {
    if (op.fused_with.empty()) continue;
    const bool gemm = op.kind == workload::OpKind::kGemm;
    const std::string key = gemm ? op.id : op.fused_with;
    if (flow_of.count(key) == 0) flow_of[key] = tl.new_flow();
  }
  for (const ReplayOp& op : r.ops) {
    uint64_t flow = 0;
    FlowRole role = FlowRole::kNone;
    if (!op.fused_with.empty()) {
      const bool gemm = op.kind == workload::OpKind::kGemm;
      flow = flow_of[gemm ? op.id : op.fused_with];
      role = gemm ? FlowRole::kOut : FlowRole::kIn;
    }
    const uint32_t track = tl.track(pid, "stream " + std::to_string(op.stream));
    tl.slice(track, op.id + " (" + std::string(workload::to_string(op.kind)) + ")",
             at_us(op.start_us), at_us(op.start_us + op.duration_us), flow, role);
  }
}

}  // namespace

void record_replay(Timeline& tl, const ReplayResult& r) {
  tl.process(0, "replay: " + r.system + ", mode " + std::string(to_string(r.mode)));
  record_process(tl, 0, r);
}

void record_replay(Timeline& tl, const MultiRankReplay& m) {
  for (size_t rank = 0; rank < m.ranks.size(); ++rank) {
    const int pid = static_cast<int>(rank);
    tl.process(pid, "rank " + std::to_string(rank) + ": " + m.system + ", mode " +
                        std::string(to_string(m.mode)));
    record_process(tl, pid, m.ranks[rank].result);
  }
}

}  // namespace t3sim::system
