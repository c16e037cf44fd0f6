// Per-GPU GEMM shapes and all-reduce sizes of one transformer layer under Megatron tensor
// parallelism (TP degree t, T tokens): IP/FC-1 column-parallel, OP/FC-2 row-parallel, attention
// core batched over the heads a rank holds. Exact algebra, no kernel model. Invariants: fwd GEMM
// of OP/FC-2 and bwd dX of FC-1/IP have M = T, N = h (the four T3 sublayers); AR = T * h * B bytes.
// MHA splits Q, K, V columns evenly (3 * attn_inner / t); GQA/MQA K/V heads are split when
// kv_heads >= t, else replicated (one per rank); SwiGLU fuses gate and up (FC-1 N = 2f/t). Source:
// workloads.md §10.1, §10.2, §10.4, §10.6.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "models/workload/model_spec.h"

namespace t3sim::workload {

enum class Sublayer { kIp, kAttn, kOp, kFc1, kFc2 };
enum class Pass { kFwd, kBwd };

std::string_view to_string(Sublayer sublayer);  // "ip", "attn", "op", "fc1", "fc2"
std::optional<Sublayer> parse_sublayer(std::string_view name);
std::string_view to_string(Pass pass);  // "fwd", "bwd"
std::optional<Pass> parse_pass(std::string_view name);

// C[M x N] = A[M x K] * B[K x N], `batch` independent times.
struct GemmShape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t batch = 1;
  std::int64_t flops() const { return 2 * m * n * k * batch; }
  bool operator==(const GemmShape&) const = default;
};

// Which GEMM of a sublayer: the forward product, the input/weight gradients of a linear layer, or
// the attention-core products (QK^T, P.V and their gradients dP, dV, dQ, dK).
enum class GemmRole { kFwd, kDx, kDw, kScore, kContext, kDProb, kDValue, kDQuery, kDKey };
std::string_view to_string(
    GemmRole role);  // "gemm", "dx", "dw", "qk", "pv", "dp", "dv", "dq", "dk"

struct SublayerGemm {
  GemmRole role;
  GemmShape shape;
};

// The per-rank dimensions of one layer at TP degree tp with `tokens` tokens.
struct TpSlice {
  int tp = 1;
  std::int64_t tokens = 0;          // T
  std::int64_t seq = 0;             // s used by the attention core: min(seq_len, T)
  std::int64_t sequences = 0;       // T / s
  std::int64_t heads_per_rank = 0;  // ceil(heads / t): the busiest rank when t does not divide a
  std::int64_t q_cols = 0;          // attn_inner / t
  std::int64_t kv_cols = 0;         // per K and V: kv_heads*d/t, or d when GQA/MQA replicate
  std::int64_t ffn_cols = 0;        // f / t
  std::int64_t fc1_cols = 0;        // f / t, or 2f / t for SwiGLU
};

// Validates tp in [1, 4096] dividing hidden, ffn and attn_inner, tokens in [1, 2^24] and a multiple
// of min(seq_len, tokens); otherwise a ConfigError (pointer "/tp" or "/tokens") naming the fix.
TpSlice tp_slice(const ModelSpec& spec, int tp, std::int64_t tokens);

// All GEMMs of `sublayer` in `pass`, in execution order: fwd gives the product (attention: QK^T,
// P.V); bwd gives dX then dW (attention: dP, dV, dQ, dK).
std::vector<SublayerGemm> sublayer_gemms(const ModelSpec& spec, int tp, std::int64_t tokens,
                                         Sublayer sublayer, Pass pass);

// True for the four AR-producing sublayers T3 accelerates: OP, FC-2 fwd; FC-1, IP bwd.
bool has_allreduce(Sublayer sublayer, Pass pass);
// The all-reduce payload per GPU: T * h * bytes_per_element.
std::int64_t allreduce_bytes(const ModelSpec& spec, std::int64_t tokens);

struct T3Sublayer {
  GemmShape gemm;                // the producer GEMM (fwd product or bwd dX)
  std::int64_t allreduce_bytes;  // its AR payload
};
// One of the four T3 sublayers; any other (sublayer, pass) is a ConfigError.
T3Sublayer t3_sublayer(const ModelSpec& spec, int tp, std::int64_t tokens, Sublayer sublayer,
                       Pass pass);

}  // namespace t3sim::workload
