#include "models/workload/layer_generator.h"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/errors.h"

namespace t3sim::workload {
namespace {

using Ids = std::vector<std::string>;

std::int64_t resolve_tokens(const ModelSpec& spec, const LayerOptions& options) {
  return options.tokens == 0 ? spec.tokens_per_micro_batch() : options.tokens;
}

// Appends ops with ids, streams and tags filled in; knows the per-rank sizes of the layer.
class LayerBuilder {
 public:
  LayerBuilder(const ModelSpec& spec, const LayerOptions& options)
      : spec_(spec),
        options_(options),
        slice_(tp_slice(spec, options.tp, resolve_tokens(spec, options))),
        bytes_(bytes_per_element(spec.dtype)) {
    if (options.sequence_parallel && slice_.tokens % options.tp != 0) {
      throw ConfigError("", "/tokens",
                        fmt::format("sequence parallelism splits the {} tokens over tp {}; use a "
                                    "token count divisible by tp",
                                    slice_.tokens, options.tp));
    }
  }

  std::string gemm(Sublayer sublayer, Pass pass, GemmRole role, Ids deps) {
    Op op;
    op.kind = OpKind::kGemm;
    for (const auto& g : sublayer_gemms(spec_, options_.tp, slice_.tokens, sublayer, pass)) {
      if (g.role == role) op.shape = g.shape;
    }
    op.sublayer = sublayer;
    return add(std::move(op), pass, fmt::format("{}.{}", to_string(sublayer), to_string(role)),
               std::move(deps));
  }

  // A collective over the full T x h activation (the buffer before a reduce-scatter or after an
  // all-gather), tagged with the sublayer whose GEMM produces or consumes it.
  std::string collective(Sublayer sublayer, Pass pass, OpKind kind, Ids deps,
                         std::string name = "") {
    Op op;
    op.kind = kind;
    op.bytes = allreduce_bytes(spec_, slice_.tokens);
    op.stream = kCommStream;
    op.sublayer = sublayer;
    op.name = std::move(name);
    return add(std::move(op), pass, fmt::format("{}.{}", to_string(sublayer), to_string(kind)),
               std::move(deps));
  }

  std::string memory(std::string_view part, Pass pass, std::int64_t bytes, Ids deps) {
    Op op;
    op.kind = OpKind::kMemory;
    op.bytes = bytes;
    if (part.starts_with("attn.")) op.sublayer = Sublayer::kAttn;
    return add(std::move(op), pass, std::string(part), std::move(deps));
  }

  // The collective that reduces a row-parallel output (fwd) or a column-parallel dX (bwd).
  OpKind reduction() const {
    return options_.sequence_parallel ? OpKind::kReduceScatter : OpKind::kAllReduce;
  }
  bool sequence_parallel() const { return options_.sequence_parallel; }

  // LayerNorm reads x and writes y (fwd); reads dy and x, writes dx (bwd). Sequence-sharded
  // under sequence parallelism.
  std::int64_t layernorm_bytes(Pass pass) const {
    const std::int64_t tokens = sequence_parallel() ? slice_.tokens / slice_.tp : slice_.tokens;
    return (pass == Pass::kFwd ? 2 : 3) * tokens * spec_.hidden * bytes_;
  }
  // Softmax over the b * a/t score matrices of s x s: read + write (fwd); P, dP in, dS out (bwd).
  std::int64_t softmax_bytes(Pass pass) const {
    const std::int64_t scores = slice_.sequences * slice_.heads_per_rank * slice_.seq * slice_.seq;
    return (pass == Pass::kFwd ? 2 : 3) * scores * bytes_;
  }
  // GeLU: x in, y out (fwd); dy, x in, dx out (bwd). SwiGLU: gate, up in, y out (fwd); dy, gate,
  // up in, dgate, dup out (bwd). In units of T x f/t elements.
  std::int64_t activation_bytes(Pass pass) const {
    const bool swiglu = spec_.activation == Activation::kSwiglu;
    const std::int64_t tensors = pass == Pass::kFwd ? (swiglu ? 3 : 2) : (swiglu ? 5 : 3);
    return tensors * slice_.tokens * slice_.ffn_cols * bytes_;
  }

  Trace finish() {
    trace_.metadata.source = "generator";
    trace_.metadata.model = spec_.name;
    trace_.metadata.tp = options_.tp;
    trace_.metadata.tokens = slice_.tokens;
    trace_.metadata.sequence_parallel = options_.sequence_parallel;
    trace_.metadata.description =
        fmt::format("one {} layer at TP {}, {} tokens per micro-batch (workloads.md §10)",
                    spec_.name, options_.tp, slice_.tokens);
    check_trace(trace_, "<generated>");
    return std::move(trace_);
  }

 private:
  std::string add(Op op, Pass pass, std::string_view part, Ids deps) {
    op.id = fmt::format("L{}.{}.{}", options_.layer_index, to_string(pass), part);
    op.pass = pass;
    op.dtype = spec_.dtype;
    op.tp_group = options_.tp;
    op.deps = std::move(deps);
    trace_.ops.push_back(std::move(op));
    return trace_.ops.back().id;
  }

  const ModelSpec& spec_;
  const LayerOptions& options_;
  TpSlice slice_;
  int bytes_;
  Trace trace_;
};

// QK^T, softmax, P.V after the QKV projection `ip`; returns the context GEMM.
std::string attention_forward(LayerBuilder& b, const std::string& ip) {
  const Pass p = Pass::kFwd;
  const std::string qk = b.gemm(Sublayer::kAttn, p, GemmRole::kScore, {ip});
  const std::string sm = b.memory("attn.softmax", p, b.softmax_bytes(p), {qk});
  return b.gemm(Sublayer::kAttn, p, GemmRole::kContext, {sm});
}

// dP, dV from the OP input grad, softmax backward, then dQ, dK; returns {dQ, dK, dV}.
Ids attention_backward(LayerBuilder& b, const std::string& op_dx) {
  const Pass p = Pass::kBwd;
  const std::string dp = b.gemm(Sublayer::kAttn, p, GemmRole::kDProb, {op_dx});
  const std::string dv = b.gemm(Sublayer::kAttn, p, GemmRole::kDValue, {op_dx});
  const std::string sm = b.memory("attn.softmax", p, b.softmax_bytes(p), {dp});
  const std::string dq = b.gemm(Sublayer::kAttn, p, GemmRole::kDQuery, {sm});
  const std::string dk = b.gemm(Sublayer::kAttn, p, GemmRole::kDKey, {sm});
  return {dq, dk, dv};
}

// The input of a column-parallel GEMM: the LayerNorm output, all-gathered over the sequence
// under sequence parallelism.
std::string column_input(LayerBuilder& b, Sublayer sublayer, const std::string& ln) {
  if (!b.sequence_parallel()) return ln;
  return b.collective(sublayer, Pass::kFwd, OpKind::kAllGather, {ln});
}

std::string forward_sequential(LayerBuilder& b) {
  const Pass p = Pass::kFwd;
  const std::string ln1 = b.memory("ln1", p, b.layernorm_bytes(p), {});
  const std::string ip =
      b.gemm(Sublayer::kIp, p, GemmRole::kFwd, {column_input(b, Sublayer::kIp, ln1)});
  const std::string op = b.gemm(Sublayer::kOp, p, GemmRole::kFwd, {attention_forward(b, ip)});
  const std::string r1 = b.collective(Sublayer::kOp, p, b.reduction(), {op});
  const std::string ln2 = b.memory("ln2", p, b.layernorm_bytes(p), {r1});
  const std::string fc1 =
      b.gemm(Sublayer::kFc1, p, GemmRole::kFwd, {column_input(b, Sublayer::kFc1, ln2)});
  const std::string act = b.memory("act", p, b.activation_bytes(p), {fc1});
  const std::string fc2 = b.gemm(Sublayer::kFc2, p, GemmRole::kFwd, {act});
  return b.collective(Sublayer::kFc2, p, b.reduction(), {fc2});
}

std::string forward_parallel(LayerBuilder& b) {
  const Pass p = Pass::kFwd;
  const std::string ln = b.memory("ln1", p, b.layernorm_bytes(p), {});
  const std::string x = column_input(b, Sublayer::kIp, ln);
  const std::string ip = b.gemm(Sublayer::kIp, p, GemmRole::kFwd, {x});
  const std::string op = b.gemm(Sublayer::kOp, p, GemmRole::kFwd, {attention_forward(b, ip)});
  const std::string fc1 = b.gemm(Sublayer::kFc1, p, GemmRole::kFwd, {x});
  const std::string act = b.memory("act", p, b.activation_bytes(p), {fc1});
  const std::string fc2 = b.gemm(Sublayer::kFc2, p, GemmRole::kFwd, {act});
  return b.collective(Sublayer::kFc2, p, b.reduction(), {op, fc2},
                      "OP and FC-2 partial outputs reduced together (parallel layers)");
}

// The output grad a row-parallel layer's backward starts from (all-gathered under SP).
Ids row_grad(LayerBuilder& b, Sublayer sublayer, Ids upstream) {
  if (!b.sequence_parallel()) return upstream;
  return {b.collective(sublayer, Pass::kBwd, OpKind::kAllGather, std::move(upstream))};
}

// Megatron re-gathers a column-parallel layer's sequence-sharded input for its weight gradient.
Ids weight_grad_deps(LayerBuilder& b, Sublayer sublayer, Ids deps, const Ids& start) {
  if (b.sequence_parallel()) {
    deps.push_back(b.collective(sublayer, Pass::kBwd, OpKind::kAllGather, start,
                                "input re-gathered for the weight gradient"));
  }
  return deps;
}

std::string backward_sequential(LayerBuilder& b, const Ids& start) {
  const Pass p = Pass::kBwd;
  const Ids dy2 = row_grad(b, Sublayer::kFc2, start);
  const std::string fc2_dx = b.gemm(Sublayer::kFc2, p, GemmRole::kDx, dy2);
  b.gemm(Sublayer::kFc2, p, GemmRole::kDw, dy2);
  const std::string act = b.memory("act", p, b.activation_bytes(p), {fc2_dx});
  const Ids fc1_w = weight_grad_deps(b, Sublayer::kFc1, {act}, start);
  const std::string fc1_dx = b.gemm(Sublayer::kFc1, p, GemmRole::kDx, {act});
  const std::string r1 = b.collective(Sublayer::kFc1, p, b.reduction(), {fc1_dx});
  b.gemm(Sublayer::kFc1, p, GemmRole::kDw, fc1_w);
  const std::string ln2 = b.memory("ln2", p, b.layernorm_bytes(p), {r1});
  const Ids dy1 = row_grad(b, Sublayer::kOp, {ln2});
  const std::string op_dx = b.gemm(Sublayer::kOp, p, GemmRole::kDx, dy1);
  b.gemm(Sublayer::kOp, p, GemmRole::kDw, dy1);
  const Ids dqkv = attention_backward(b, op_dx);
  const Ids ip_w = weight_grad_deps(b, Sublayer::kIp, dqkv, start);
  const std::string ip_dx = b.gemm(Sublayer::kIp, p, GemmRole::kDx, dqkv);
  const std::string r2 = b.collective(Sublayer::kIp, p, b.reduction(), {ip_dx});
  b.gemm(Sublayer::kIp, p, GemmRole::kDw, ip_w);
  return b.memory("ln1", p, b.layernorm_bytes(p), {r2});
}

std::string backward_parallel(LayerBuilder& b, const Ids& start) {
  const Pass p = Pass::kBwd;
  const Ids dy = row_grad(b, Sublayer::kFc2, start);
  const std::string fc2_dx = b.gemm(Sublayer::kFc2, p, GemmRole::kDx, dy);
  b.gemm(Sublayer::kFc2, p, GemmRole::kDw, dy);
  const std::string act = b.memory("act", p, b.activation_bytes(p), {fc2_dx});
  const std::string fc1_dx = b.gemm(Sublayer::kFc1, p, GemmRole::kDx, {act});
  const std::string op_dx = b.gemm(Sublayer::kOp, p, GemmRole::kDx, dy);
  b.gemm(Sublayer::kOp, p, GemmRole::kDw, dy);
  const Ids dqkv = attention_backward(b, op_dx);
  const Ids shared_input = weight_grad_deps(b, Sublayer::kIp, {}, start);
  const std::string ip_dx = b.gemm(Sublayer::kIp, p, GemmRole::kDx, dqkv);
  const std::string r = b.collective(Sublayer::kIp, p, b.reduction(), {fc1_dx, ip_dx},
                                     "FC-1 and IP input grads reduced together (parallel layers)");
  Ids fc1_w = shared_input;
  fc1_w.push_back(act);
  b.gemm(Sublayer::kFc1, p, GemmRole::kDw, fc1_w);
  Ids ip_w = shared_input;
  ip_w.insert(ip_w.end(), dqkv.begin(), dqkv.end());
  b.gemm(Sublayer::kIp, p, GemmRole::kDw, ip_w);
  return b.memory("ln1", p, b.layernorm_bytes(p), {r});
}

}  // namespace

std::optional<PassSelection> parse_pass_selection(std::string_view name) {
  if (name == "fwd") return PassSelection::kFwd;
  if (name == "bwd") return PassSelection::kBwd;
  if (name == "both") return PassSelection::kBoth;
  return std::nullopt;
}

Trace generate_layer(const ModelSpec& spec, const LayerOptions& options) {
  LayerBuilder b(spec, options);
  Ids after_forward;
  if (options.passes != PassSelection::kBwd) {
    after_forward.push_back(spec.parallel_layers ? forward_parallel(b) : forward_sequential(b));
  }
  if (options.passes != PassSelection::kFwd) {
    if (spec.parallel_layers) {
      backward_parallel(b, after_forward);
    } else {
      backward_sequential(b, after_forward);
    }
  }
  return b.finish();
}

}  // namespace t3sim::workload
