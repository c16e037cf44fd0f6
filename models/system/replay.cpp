#include "models/system/replay.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <tuple>
#include <unordered_map>

#include "models/system/gemm_limits.h"
#include "models/system/scenario.h"
#include "models/system/sublayer.h"
#include "sim/errors.h"

namespace t3sim::system {
namespace {

using workload::Op;
using workload::OpKind;
using workload::Trace;

constexpr uint64_t kMemoryProbeBytes = uint64_t{1} << 30;

// Ops are indexed by int (partner -1 = none); these index vectors with them.
template <class T>
T& at(std::vector<T>& v, int i) {
  return v[static_cast<size_t>(i)];
}
template <class T>
const T& at(const std::vector<T>& v, int i) {
  return v[static_cast<size_t>(i)];
}

uint32_t elem_bytes(const Op& op) {
  return static_cast<uint32_t>(
      workload::bytes_per_element(op.dtype.value_or(workload::Dtype::kFp16)));
}

// A batched GEMM runs as one GEMM of M x batch rows (see replay.h).
gpu::GemmShape flat_shape(const workload::GemmShape& s) {
  return {static_cast<uint64_t>(s.m * s.batch), static_cast<uint64_t>(s.n),
          static_cast<uint64_t>(s.k)};
}

uint64_t output_bytes(const Op& gemm) {
  const auto s = flat_shape(gemm.shape);
  return s.m * s.n * elem_bytes(gemm);
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

// Runs each distinct simulation once per replay.
class Simulations {
 public:
  struct Times {
    double total_us = 0;
    double gemm_us = 0;
  };
  Simulations(const ConfigDoc& doc, const ReplayOptions& o, int gpus)
      : doc_(doc), options_(o), gpus_(static_cast<uint64_t>(gpus)) {}

  Times gemm(const Op& op) {
    const auto s = flat_shape(op.shape);
    return memo({0, s.m, s.n, s.k, elem_bytes(op)}, [&] {
      SublayerSpec spec;
      spec.shape = s;
      spec.elem_bytes = elem_bytes(op);
      const double t = run_piece(doc_, spec, Piece::kGemm).total_us;
      return Times{t, t};
    });
  }
  Times fused(const Op& gemm) {
    const auto s = flat_shape(gemm.shape);
    return memo({1, s.m, s.n, s.k, elem_bytes(gemm)}, [&] {
      SublayerSpec spec;
      spec.shape = s;
      spec.elem_bytes = elem_bytes(gemm);
      spec.ar_cus = options_.ar_cus;
      spec.decompose_chunks = options_.decompose_chunks;
      const SublayerResult r = run_sublayer(doc_, spec, options_.mode);
      return Times{r.total_us, r.gemm_us};
    });
  }
  Times collective(const Op& op) {
    const uint64_t e = elem_bytes(op);
    const uint64_t unit = op.kind == OpKind::kAllReduce ? e : e * gpus_;
    const uint64_t bytes = (static_cast<uint64_t>(op.bytes) + unit - 1) / unit * unit;
    return memo({2 + static_cast<int>(op.kind), bytes, e, 0, 0}, [&] {
      CollectiveJob job;
      job.op = op.kind == OpKind::kAllReduce       ? CollOp::kAllReduce
               : op.kind == OpKind::kReduceScatter ? CollOp::kReduceScatter
                                                   : CollOp::kAllGather;
      job.bytes = bytes;
      job.elem_bytes = static_cast<uint32_t>(e);
      return Times{run_collective(doc_, job).total_us, 0};
    });
  }
  Times memory(const Op& op) {
    const auto bytes = static_cast<uint64_t>(op.bytes);
    const uint64_t simulated = std::min(bytes, kMemoryProbeBytes);
    const Times probe = memo({9, simulated, 0, 0, 0}, [&] {
      return Times{simulate_memory(doc_, simulated), 0};
    });
    const double scale = static_cast<double>(bytes) / static_cast<double>(simulated);
    return Times{probe.total_us * scale, 0};
  }
  // The duration of an op that runs on its own.
  double single(const Op& op) {
    if (op.kind == OpKind::kFixed) return op.duration_us;
    if (op.kind == OpKind::kGemm) return gemm(op).total_us;
    return (op.kind == OpKind::kMemory ? memory(op) : collective(op)).total_us;
  }
  uint64_t runs = 0;
  uint64_t hits = 0;

 private:
  using Key = std::tuple<int, uint64_t, uint64_t, uint64_t, uint64_t>;
  template <class F>
  Times memo(const Key& key, F run) {
    const auto it = memo_.find(key);
    if (it != memo_.end()) {
      ++hits;
      return it->second;
    }
    ++runs;
    return memo_.emplace(key, run()).first->second;
  }
  const ConfigDoc& doc_;
  ReplayOptions options_;
  uint64_t gpus_;
  std::map<Key, Times> memo_;
};

// The trace as a graph: preds = deps + the previous op on the stream; consumers = data deps only.
struct Graph {
  std::vector<std::vector<int>> preds;
  std::vector<std::vector<int>> succs;
  std::vector<std::vector<int>> consumers;
  std::vector<std::vector<int>> deps;
};

Graph build_graph(const Trace& t) {
  const size_t n = t.ops.size();
  Graph g{std::vector<std::vector<int>>(n), std::vector<std::vector<int>>(n),
          std::vector<std::vector<int>>(n), std::vector<std::vector<int>>(n)};
  std::unordered_map<std::string, int> index;
  for (size_t i = 0; i < n; ++i) index.emplace(t.ops[i].id, static_cast<int>(i));
  std::map<int, int> last_on_stream;
  for (size_t i = 0; i < n; ++i) {
    const int me = static_cast<int>(i);
    for (const auto& d : t.ops[i].deps) {
      const int p = index.at(d);
      g.deps[i].push_back(p);
      at(g.consumers, p).push_back(me);
      g.preds[i].push_back(p);
    }
    const auto prev = last_on_stream.find(t.ops[i].stream);
    if (prev != last_on_stream.end()) g.preds[i].push_back(prev->second);
    last_on_stream[t.ops[i].stream] = me;
  }
  for (size_t i = 0; i < n; ++i) {
    for (int p : g.preds[i]) at(g.succs, p).push_back(static_cast<int>(i));
  }
  return g;
}

// True when some predecessor of `ar` other than `gemm` is reachable from `gemm`: fusing the two
// into one unit would then wait for itself.
bool fusion_deadlocks(const Graph& g, int gemm, int ar) {
  std::vector<char> seen(g.succs.size(), 0);
  std::vector<int> todo{gemm};
  at(seen, gemm) = 1;
  while (!todo.empty()) {
    const int x = todo.back();
    todo.pop_back();
    for (int s : at(g.succs, x)) {
      if (s == ar || at(seen, s)) continue;
      at(seen, s) = 1;
      todo.push_back(s);
    }
  }
  const auto& preds = at(g.preds, ar);
  return std::any_of(preds.begin(), preds.end(), [&](int p) { return p != gemm && at(seen, p); });
}

bool fusable(const Trace& t, const Graph& g, int gemm, int ar, uint64_t gpus) {
  const Op& p = at(t.ops, gemm);
  if (p.kind != OpKind::kGemm) return false;
  const uint64_t out = output_bytes(p);
  if (out != static_cast<uint64_t>(at(t.ops, ar).bytes) || out % (elem_bytes(p) * gpus) != 0) {
    return false;
  }
  for (int c : at(g.consumers, gemm)) {
    const auto& d = at(g.deps, c);
    if (c != ar && std::find(d.begin(), d.end(), ar) == d.end()) return false;
  }
  return !fusion_deadlocks(g, gemm, ar);
}

// partner[i]: the op fused with op i, or -1.
std::vector<int> find_pairs(const Trace& t, const Graph& g, uint64_t gpus) {
  std::vector<int> partner(t.ops.size(), -1);
  for (size_t a = 0; a < t.ops.size(); ++a) {
    if (t.ops[a].kind != OpKind::kAllReduce) continue;
    for (int d : g.deps[a]) {
      if (at(partner, d) != -1 || !fusable(t, g, d, static_cast<int>(a), gpus)) {
        continue;
      }
      at(partner, d) = static_cast<int>(a);
      partner[a] = d;
      break;
    }
  }
  return partner;
}

// Units (single ops or fused pairs, led by the lower index) in an order that respects preds.
std::vector<int> schedule_order(const Trace& t, const Graph& g, const std::vector<int>& partner,
                                const std::string& file) {
  const size_t n = t.ops.size();
  auto unit = [&](int i) { return at(partner, i) < 0 ? i : std::min(i, at(partner, i)); };
  std::vector<int> waiting(n, 0);
  std::vector<std::vector<int>> next(n);
  for (size_t i = 0; i < n; ++i) {
    for (int p : g.preds[i]) {
      const int from = unit(p), to = unit(static_cast<int>(i));
      if (from == to) continue;
      at(next, from).push_back(to);
      ++at(waiting, to);
    }
  }
  std::vector<int> order, ready;
  for (size_t i = 0; i < n; ++i) {
    if (unit(static_cast<int>(i)) == static_cast<int>(i) && waiting[i] == 0) {
      ready.push_back(static_cast<int>(i));
    }
  }
  while (!ready.empty()) {
    const int u = ready.back();
    ready.pop_back();
    order.push_back(u);
    for (int v : at(next, u)) {
      if (--at(waiting, v) == 0) ready.push_back(v);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) continue;
    throw ConfigError(file, "/ops/" + std::to_string(i),
                      "op '" + t.ops[i].id +
                          "' can never start: through its deps it waits for an "
                          "op queued behind it on an in-order stream (stream " +
                          std::to_string(t.ops[i].stream) + "); reorder the ops or the streams");
  }
  return order;
}

void check_tp(const Trace& t, int gpus, const std::string& file) {
  auto fail = [&](const std::string& pointer, const std::string& what, int tp) {
    const std::string n = std::to_string(tp);
    throw ConfigError(file, pointer,
                      what + " is " + n + " but the system has " + std::to_string(gpus) +
                          " GPUs; replay with --set gpus=" + n + " or a system with " + n +
                          " GPUs");
  };
  if (t.metadata.tp && *t.metadata.tp != gpus) fail("/metadata/tp", "metadata.tp", *t.metadata.tp);
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const auto& g = t.ops[i].tp_group;
    if (g && *g != gpus) {
      fail("/ops/" + std::to_string(i) + "/tp_group", "op '" + t.ops[i].id + "': tp_group", *g);
    }
  }
}

// Rejects, before anything runs, a GEMM op the GPU model cannot represent (gemm_limits.h).
void check_gemms(const Trace& t, const ConfigDoc& doc, const std::string& file) {
  const gpu::GpuSpec spec = system_gpu_spec(doc);
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.ops[i];
    if (op.kind != OpKind::kGemm) continue;
    check_gemm_fits(spec, flat_shape(op.shape), elem_bytes(op), file,
                    "/ops/" + std::to_string(i) + "/shape");
  }
}

std::string model_of(OpKind kind) {
  return workload::is_collective(kind) ? "collective" : std::string(workload::to_string(kind));
}

ReplayOp describe(const Op& op, double start_us, double duration_us, std::string model) {
  ReplayOp r;
  r.id = op.id;
  r.kind = op.kind;
  r.stream = op.stream;
  r.start_us = start_us;
  r.duration_us = duration_us;
  r.model = std::move(model);
  r.measured_us = op.measured_us;
  return r;
}

// Starts unit `u` after its preds and fills in its op(s).
void place(const Trace& t, const Graph& g, const std::vector<int>& partner, int u,
           Simulations& sims, std::vector<ReplayOp>& out) {
  const int other = at(partner, u);
  double start = 0;
  for (int member : {u, other}) {
    if (member < 0) continue;
    for (int p : at(g.preds, member)) {
      if (p != u && p != other) start = std::max(start, at(out, p).end_us());
    }
  }
  const Op& op = at(t.ops, u);
  if (other >= 0) {
    const int gi = op.kind == OpKind::kGemm ? u : other;
    const int ai = gi == u ? other : u;
    const Op& gemm = at(t.ops, gi);
    const Op& ar = at(t.ops, ai);
    const auto times = sims.fused(gemm);
    at(out, gi) = describe(gemm, start, times.gemm_us, "fused");
    at(out, ai) = describe(ar, start + times.gemm_us, times.total_us - times.gemm_us, "fused");
    at(out, gi).fused_with = ar.id;
    at(out, ai).fused_with = gemm.id;
    return;
  }
  at(out, u) = describe(op, start, sims.single(op), model_of(op.kind));
}

}  // namespace

ReplayResult replay_trace(const ConfigDoc& doc, const Trace& trace, const std::string& file,
                          const ReplayOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  workload::check_trace(trace, file);
  ReplayResult r;
  r.mode = options.mode;
  r.system = system_name(doc);
  r.gpus = system_gpus(doc);
  check_tp(trace, r.gpus, file);
  check_gemms(trace, doc, file);
  const Graph g = build_graph(trace);
  const auto partner = find_pairs(trace, g, static_cast<uint64_t>(r.gpus));
  const auto order = schedule_order(trace, g, partner, file);
  Simulations sims(doc, options, r.gpus);
  r.ops.resize(trace.ops.size());
  size_t placed = 0;
  for (int u : order) {
    place(trace, g, partner, u, sims, r.ops);
    if (options.progress) options.progress(++placed, order.size());
  }
  for (const auto& op : r.ops) r.total_us = std::max(r.total_us, op.end_us());
  r.simulations = sims.runs;
  r.memo_hits = sims.hits;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

nlohmann::ordered_json to_json(const ReplayResult& r) {
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (const auto& op : r.ops) {
    nlohmann::ordered_json j;
    j["id"] = op.id;
    j["kind"] = workload::to_string(op.kind);
    j["stream"] = op.stream;
    j["start_us"] = op.start_us;
    j["duration_us"] = op.duration_us;
    j["end_us"] = op.end_us();
    j["model"] = op.model;
    if (!op.fused_with.empty()) j["fused_with"] = op.fused_with;
    if (op.measured_us) j["measured_us"] = *op.measured_us;
    ops.push_back(std::move(j));
  }
  nlohmann::ordered_json out;
  out["ops"] = std::move(ops);
  out["total_us"] = r.total_us;
  out["mode"] = to_string(r.mode);
  out["system"] = r.system;
  out["gpus"] = r.gpus;
  out["simulations"] = r.simulations;
  out["memo_hits"] = r.memo_hits;
  out["wall_s"] = r.wall_s;
  return out;
}

}  // namespace t3sim::system
