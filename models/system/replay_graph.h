// The pieces of trace replay (replay.h) that the single-program replay and the multi-rank replay
// (replay_ranks.h) share: the trace as a graph, GEMM + collective fusion, input checks and the
// op records. Internal to models/system/replay*.cpp.
// Contract: as replay.h describes each step; ops are indexed by int, -1 meaning none.
#pragma once

#include <string>
#include <vector>

#include "models/system/replay.h"
#include "models/workload/trace.h"
#include "sim/config.h"

namespace t3sim::system::replay_detail {

template <class T>
T& at(std::vector<T>& v, int i) {
  return v[static_cast<size_t>(i)];
}
template <class T>
const T& at(const std::vector<T>& v, int i) {
  return v[static_cast<size_t>(i)];
}

// The trace as a graph: preds = deps + the previous op on the stream; consumers = data deps only.
struct Graph {
  std::vector<std::vector<int>> preds;
  std::vector<std::vector<int>> succs;
  std::vector<std::vector<int>> consumers;
  std::vector<std::vector<int>> deps;
};

Graph build_graph(const workload::Trace& t);
// partner[i]: the op fused with op i (a GEMM and the all-reduce or reduce-scatter of its
// output), or -1.
std::vector<int> find_pairs(const workload::Trace& t, const Graph& g, uint64_t gpus);
// Group sizes other than the system's GPUs, and GEMMs the GPU model cannot hold: ConfigErrors.
void check_tp(const workload::Trace& t, int gpus, const std::string& file);
void check_gemms(const workload::Trace& t, const ConfigDoc& doc, const std::string& file);
std::string model_of(workload::OpKind kind);
ReplayOp describe(const workload::Op& op, double start_us, double duration_us, std::string model);
// A send or recv the library cannot run as one send/recv pattern: kept at its measured time.
bool unsimulated(const workload::Op& op, int gpus);

}  // namespace t3sim::system::replay_detail
