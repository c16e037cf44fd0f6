// One transformer layer of a TP-sharded model as a trace of per-GPU ops with data dependencies:
// forward, backward (dX and dW GEMMs in reverse order) or both, backward after forward. Compute on
// stream 0, collectives on stream 1; every rank runs the same ops (symmetric TP). Fidelity: GEMMs
// and collectives exact per the Megatron algebra (sublayer.h); LayerNorm, softmax and activation
// are memory-bound ops sized by bytes read + written; residual adds, dropout, biases, embeddings
// and the optimizer are not modelled. Parallel-layer models (PaLM) reduce the attention and MLP
// outputs with one collective per pass. Source: workloads.md §10.1-§10.4.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "models/workload/model_spec.h"
#include "models/workload/trace.h"

namespace t3sim::workload {

enum class PassSelection { kFwd, kBwd, kBoth };
std::optional<PassSelection> parse_pass_selection(std::string_view name);  // "fwd", "bwd", "both"

struct LayerOptions {
  int tp = 8;
  std::int64_t tokens = 0;  // 0 means micro_batch * seq_len
  PassSelection passes = PassSelection::kBoth;
  bool sequence_parallel = false;  // each AR becomes reduce-scatter + all-gather (Korthikanti)
  int layer_index = 0;             // op ids start with "L<layer_index>."
};

// Op ids read "L<i>.<pass>.<part>", e.g. "L0.fwd.fc2.gemm", "L0.bwd.ip.dx", "L0.fwd.op.all_reduce".
// Invalid tp/tokens are ConfigErrors (see tp_slice); sequence parallelism also needs tp | tokens.
Trace generate_layer(const ModelSpec& spec, const LayerOptions& options);

}  // namespace t3sim::workload
