#include "models/workload/sublayer.h"

#include <array>
#include <numeric>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "sim/errors.h"
#include "sim/strict_json.h"

namespace t3sim::workload {
namespace {

constexpr int kMaxTp = 4096;
constexpr std::int64_t kMaxTokens = std::int64_t{1} << 24;

constexpr std::array<std::pair<Sublayer, std::string_view>, 5> kSublayerNames = {{
    {Sublayer::kIp, "ip"},
    {Sublayer::kAttn, "attn"},
    {Sublayer::kOp, "op"},
    {Sublayer::kFc1, "fc1"},
    {Sublayer::kFc2, "fc2"},
}};

constexpr std::array<std::string_view, 9> kRoleNames = {"gemm", "dx", "dw", "qk", "pv",
                                                        "dp",   "dv", "dq", "dk"};

// The valid TP degrees: divisors of gcd(hidden, ffn, attn_inner) up to kMaxTp.
std::string valid_tp_list(const ModelSpec& spec) {
  const std::int64_t g = std::gcd(std::gcd(spec.hidden, spec.ffn), spec.attn_inner);
  std::vector<std::string> divisors;
  for (std::int64_t d = 1; d <= std::min<std::int64_t>(g, kMaxTp); ++d) {
    if (g % d == 0) divisors.push_back(std::to_string(d));
  }
  return join(divisors, ", ");
}

void check_tp(const ModelSpec& spec, int tp) {
  if (tp < 1 || tp > kMaxTp) {
    throw ConfigError(
        "", "/tp",
        fmt::format("tp {} is outside [1, {}]; choose a TP degree in range", tp, kMaxTp));
  }
  if (spec.hidden % tp != 0 || spec.ffn % tp != 0 || spec.attn_inner % tp != 0) {
    throw ConfigError(
        "", "/tp",
        fmt::format("tp {} must divide hidden {}, ffn {} and attn_inner {} of model '{}'; valid "
                    "TP degrees: {}",
                    tp, spec.hidden, spec.ffn, spec.attn_inner, spec.name, valid_tp_list(spec)));
  }
  if (spec.kv_heads >= tp && (spec.kv_heads * spec.head_dim) % tp != 0) {
    throw ConfigError("", "/tp",
                      fmt::format("tp {} must divide kv_heads * head_dim = {} of model '{}'; "
                                  "choose a TP degree that divides it",
                                  tp, spec.kv_heads * spec.head_dim, spec.name));
  }
}

void check_tokens(const ModelSpec& spec, std::int64_t tokens) {
  if (tokens < 1 || tokens > kMaxTokens) {
    throw ConfigError("", "/tokens",
                      fmt::format("tokens {} is outside [1, {}]; use micro_batch * seq_len = {}",
                                  tokens, kMaxTokens, spec.tokens_per_micro_batch()));
  }
  const std::int64_t seq = std::min(spec.seq_len, tokens);
  if (tokens % seq != 0) {
    throw ConfigError("", "/tokens",
                      fmt::format("tokens {} is not a whole number of {}-token sequences of model "
                                  "'{}'; use a multiple of seq_len (e.g. {}) or at most {}",
                                  tokens, seq, spec.name, spec.tokens_per_micro_batch(), seq));
  }
}

// Y[T x out] = X[T x in] * W[in x out] and its gradients (workloads.md §10.2).
SublayerGemm linear(GemmRole role, std::int64_t tokens, std::int64_t in, std::int64_t out) {
  switch (role) {
    case GemmRole::kDx:
      return {role, {tokens, in, out, 1}};
    case GemmRole::kDw:
      return {role, {in, out, tokens, 1}};
    default:
      return {GemmRole::kFwd, {tokens, out, in, 1}};
  }
}

std::vector<SublayerGemm> attention_gemms(const TpSlice& s, std::int64_t d, Pass pass) {
  const std::int64_t batch = s.sequences * s.heads_per_rank;
  const GemmShape square{s.seq, s.seq, d, batch};  // QK^T and dP = dO V^T
  const GemmShape tall{s.seq, d, s.seq, batch};    // P V, dV = P^T dO, dQ = dS K, dK = dS^T Q
  if (pass == Pass::kFwd) return {{GemmRole::kScore, square}, {GemmRole::kContext, tall}};
  return {{GemmRole::kDProb, square},
          {GemmRole::kDValue, tall},
          {GemmRole::kDQuery, tall},
          {GemmRole::kDKey, tall}};
}

}  // namespace

std::string_view to_string(Sublayer sublayer) {
  return kSublayerNames.at(static_cast<std::size_t>(sublayer)).second;
}

std::optional<Sublayer> parse_sublayer(std::string_view name) {
  for (const auto& [sublayer, text] : kSublayerNames) {
    if (text == name) return sublayer;
  }
  return std::nullopt;
}

std::string_view to_string(Pass pass) { return pass == Pass::kFwd ? "fwd" : "bwd"; }

std::optional<Pass> parse_pass(std::string_view name) {
  if (name == "fwd") return Pass::kFwd;
  if (name == "bwd") return Pass::kBwd;
  return std::nullopt;
}

std::string_view to_string(GemmRole role) { return kRoleNames.at(static_cast<std::size_t>(role)); }

TpSlice tp_slice(const ModelSpec& spec, int tp, std::int64_t tokens) {
  check_tp(spec, tp);
  check_tokens(spec, tokens);
  TpSlice s;
  s.tp = tp;
  s.tokens = tokens;
  s.seq = std::min(spec.seq_len, tokens);
  s.sequences = tokens / s.seq;
  s.heads_per_rank = (spec.heads + tp - 1) / tp;
  s.q_cols = spec.attn_inner / tp;
  const bool split_kv = spec.attention == AttentionKind::kMha || spec.kv_heads >= tp;
  s.kv_cols = split_kv ? spec.kv_heads * spec.head_dim / tp : spec.head_dim;
  s.ffn_cols = spec.ffn / tp;
  s.fc1_cols = spec.activation == Activation::kSwiglu ? 2 * s.ffn_cols : s.ffn_cols;
  return s;
}

std::vector<SublayerGemm> sublayer_gemms(const ModelSpec& spec, int tp, std::int64_t tokens,
                                         Sublayer sublayer, Pass pass) {
  const TpSlice s = tp_slice(spec, tp, tokens);
  if (sublayer == Sublayer::kAttn) return attention_gemms(s, spec.head_dim, pass);
  std::int64_t in = 0;
  std::int64_t out = 0;
  switch (sublayer) {
    case Sublayer::kIp:
      in = spec.hidden;
      out = s.q_cols + 2 * s.kv_cols;
      break;
    case Sublayer::kOp:
      in = s.q_cols;
      out = spec.hidden;
      break;
    case Sublayer::kFc1:
      in = spec.hidden;
      out = s.fc1_cols;
      break;
    default:  // kFc2
      in = s.ffn_cols;
      out = spec.hidden;
      break;
  }
  if (pass == Pass::kFwd) return {linear(GemmRole::kFwd, tokens, in, out)};
  return {linear(GemmRole::kDx, tokens, in, out), linear(GemmRole::kDw, tokens, in, out)};
}

bool has_allreduce(Sublayer sublayer, Pass pass) {
  if (pass == Pass::kFwd) return sublayer == Sublayer::kOp || sublayer == Sublayer::kFc2;
  return sublayer == Sublayer::kFc1 || sublayer == Sublayer::kIp;
}

std::int64_t allreduce_bytes(const ModelSpec& spec, std::int64_t tokens) {
  return tokens * spec.hidden * bytes_per_element(spec.dtype);
}

T3Sublayer t3_sublayer(const ModelSpec& spec, int tp, std::int64_t tokens, Sublayer sublayer,
                       Pass pass) {
  if (!has_allreduce(sublayer, pass)) {
    throw ConfigError("", "/sublayer",
                      fmt::format("{} {} is not followed by an all-reduce; T3 sublayers are op "
                                  "fwd, fc2 fwd, fc1 bwd and ip bwd",
                                  to_string(sublayer), to_string(pass)));
  }
  const auto gemms = sublayer_gemms(spec, tp, tokens, sublayer, pass);
  return {gemms.front().shape, allreduce_bytes(spec, tokens)};
}

}  // namespace t3sim::workload
