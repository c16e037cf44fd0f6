#include "models/system/replay.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <tuple>
#include <unordered_map>

#include "models/system/gemm_limits.h"
#include "models/system/replay_graph.h"
#include "models/system/replay_p2p.h"
#include "models/system/replay_sims.h"
#include "models/system/system.h"
#include "sim/errors.h"

namespace t3sim::system {
namespace replay_detail {
using workload::Op;
using workload::OpKind;
using workload::Trace;

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
namespace {

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
  if (p.kind != OpKind::kGemm || p.shape.batch != 1) return false;  // T3 plans hold one product
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

}  // namespace

// partner[i]: the op fused with op i, or -1.
std::vector<int> find_pairs(const Trace& t, const Graph& g, uint64_t gpus) {
  std::vector<int> partner(t.ops.size(), -1);
  for (size_t a = 0; a < t.ops.size(); ++a) {
    if (t.ops[a].kind != OpKind::kAllReduce && t.ops[a].kind != OpKind::kReduceScatter) continue;
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

}  // namespace replay_detail

namespace {

using namespace replay_detail;

// Units (single ops or fused pairs, led by the lower index) in an order that respects preds.
std::vector<int> schedule_order(const Trace& t, const Graph& g, const std::vector<int>& partner,
                                const std::vector<int>& match, const std::string& file) {
  const size_t n = t.ops.size();
  auto unit = [&](int i) { return at(partner, i) < 0 ? i : std::min(i, at(partner, i)); };
  std::vector<int> waiting(n, 0);
  std::vector<std::vector<int>> next(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<int> before = g.preds[i];
    if (match[i] >= 0) before.push_back(match[i]);  // a recv is placed after its send
    for (int p : before) {
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

}  // namespace

namespace replay_detail {

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
    check_gemm_fits(spec, gemm_shape(op), elem_bytes(op), file,
                    "/ops/" + std::to_string(i) + "/shape");
    if (gpu::matrix_rate(spec, precision_of(op)) == 0) {
      throw ConfigError(file, "/ops/" + std::to_string(i) + "/dtype",
                        "op '" + op.id + "' is a " + std::string(workload::to_string(*op.dtype)) +
                            " GEMM, but the system's GPU preset gives no flops_per_cu_cycle_" +
                            std::string(gpu::to_string(precision_of(op))) +
                            "; add it to the preset (with its source) or use a GPU that has one");
    }
  }
}

std::string model_of(OpKind kind) {
  if (workload::is_point_to_point(kind)) return "p2p";
  return workload::is_collective(kind) ? "collective" : std::string(workload::to_string(kind));
}

ReplayOp describe(const Op& op, double start_us, double duration_us, std::string model) {
  ReplayOp r;
  r.id = op.id;
  r.idle_us = op.idle_us;
  r.kind = op.kind;
  r.stream = op.stream;
  r.start_us = start_us;
  r.duration_us = duration_us;
  r.model = std::move(model);
  r.measured_us = op.measured_us;
  return r;
}

// A send or recv to a peer the library cannot reach as one send/recv pattern (replay_sims.h):
// kept at its measured time (else 0) and counted as communication not simulated.
bool unsimulated(const Op& op, int gpus) {
  return workload::is_point_to_point(op.kind) && !peer_reachable(op.peer, gpus);
}

}  // namespace replay_detail

namespace {

// Starts unit `u` after its preds and fills in its op(s); a matched recv ends when its send has.
void place(const Trace& t, const Graph& g, const std::vector<int>& partner,
           const std::vector<int>& match, int gpus, int u, Simulations& sims,
           std::vector<ReplayOp>& out) {
  const int other = at(partner, u);
  double start = 0;
  for (int member : {u, other}) {
    if (member < 0) continue;
    for (int p : at(g.preds, member)) {
      if (p != u && p != other) start = std::max(start, at(out, p).end_us());
    }
  }
  const Op& op = at(t.ops, u);
  start += op.idle_us;  // observed launch gaps (imported traces) are waited out
  if (other >= 0) {
    const int gi = op.kind == OpKind::kGemm ? u : other;
    const int ai = gi == u ? other : u;
    const Op& gemm = at(t.ops, gi);
    const Op& ar = at(t.ops, ai);
    const auto times = sims.fused(gemm, ar.kind);
    at(out, gi) = describe(gemm, start, times.gemm_us, "fused");
    at(out, ai) = describe(ar, start + times.gemm_us, times.total_us - times.gemm_us, "fused");
    at(out, gi).fused_with = ar.id;
    at(out, ai).fused_with = gemm.id;
    return;
  }
  if (unsimulated(op, gpus)) {
    at(out, u) = describe(op, start, op.measured_us.value_or(0), "not simulated");
    return;
  }
  const int send = at(match, u);
  if (send >= 0) {
    const double arrival = at(out, send).end_us();
    at(out, u) = describe(op, start, std::max(0.0, arrival - start),
                          "p2p (data of " + at(t.ops, send).id + ")");
    return;
  }
  at(out, u) = describe(op, start, sims.single(op), model_of(op.kind));
}

// The communication totals: the time any communication op runs, and what was not simulated.
void add_communication(const Trace& t, int gpus, ReplayResult& r) {
  std::vector<std::pair<double, double>> spans;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    if (!workload::is_collective(t.ops[i].kind)) continue;
    ++r.comm_ops;
    if (unsimulated(t.ops[i], gpus)) {
      ++r.unsimulated_comm_ops;
      r.unsimulated_comm_us += r.ops[i].duration_us;
    } else if (r.ops[i].duration_us > 0) {
      spans.emplace_back(r.ops[i].start_us, r.ops[i].end_us());
    }
  }
  std::sort(spans.begin(), spans.end());
  double covered_to = 0;
  for (const auto& [begin, end] : spans) {
    r.comm_us += std::max(0.0, end - std::max(begin, covered_to));
    covered_to = std::max(covered_to, end);
  }
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
  const auto match = replay_detail::match_sends(trace, g.succs, partner);
  const auto order = schedule_order(trace, g, partner, match, file);
  Simulations sims(doc, options, r.gpus);
  r.ops.resize(trace.ops.size());
  size_t placed = 0;
  for (int u : order) {
    place(trace, g, partner, match, r.gpus, u, sims, r.ops);
    if (options.progress) options.progress(++placed, order.size());
  }
  if (options.mode != Mode::kSequential &&
      std::none_of(partner.begin(), partner.end(), [](int p) { return p >= 0; })) {
    r.warnings.push_back(
        "mode " + std::string(to_string(options.mode)) +
        " fused nothing: no all-reduce or reduce-scatter consumes exactly one GEMM's output "
        "(same bytes, the GEMM's only consumer), so every op ran as in sequential mode");
  }
  for (const auto& op : r.ops) {
    r.total_us = std::max(r.total_us, op.end_us());
    r.idle_us += op.idle_us;
  }
  add_communication(trace, r.gpus, r);
  if (options.strict && r.unsimulated_comm_ops > 0) {
    const auto it = std::find_if(trace.ops.begin(), trace.ops.end(),
                                 [&](const Op& op) { return unsimulated(op, r.gpus); });
    const auto i = static_cast<size_t>(it - trace.ops.begin());
    throw ConfigError(file, "/ops/" + std::to_string(i) + "/peer",
                      "op '" + it->id + "': a " + std::string(workload::to_string(it->kind)) +
                          " to peer offset " + std::to_string(it->peer) + " of " +
                          std::to_string(r.gpus) +
                          " ranks is not simulated (the library's send/recv needs an offset "
                          "coprime with the group); drop --strict to keep it at its measured "
                          "time");
  }
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
    if (op.idle_us > 0) j["idle_us"] = op.idle_us;
    ops.push_back(std::move(j));
  }
  nlohmann::ordered_json out;
  out["ops"] = std::move(ops);
  out["total_us"] = r.total_us;
  out["idle_us"] = r.idle_us;
  out["mode"] = to_string(r.mode);
  out["system"] = r.system;
  out["gpus"] = r.gpus;
  out["simulations"] = r.simulations;
  out["memo_hits"] = r.memo_hits;
  out["wall_s"] = r.wall_s;
  out["comm_us"] = r.comm_us;
  out["comm_ops"] = r.comm_ops;
  out["unsimulated_comm_ops"] = r.unsimulated_comm_ops;
  out["unsimulated_comm_us"] = r.unsimulated_comm_us;
  out["warnings"] = r.warnings;
  return out;
}

}  // namespace t3sim::system
