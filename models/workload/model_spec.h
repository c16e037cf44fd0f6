// One transformer LLM from the model zoo (configs/models/<name>.json): the architecture numbers
// that set per-GPU GEMM shapes and collective sizes under Megatron tensor parallelism. An exact
// copy of the config. Invariants checked at load: every size positive, heads % kv_heads == 0,
// attn_inner == heads * head_dim, "attention" agrees with kv_heads (mha: == heads, mqa: == 1, gqa:
// between), name == file stem, and a "source" citation for every architecture value.
// Source: workloads.md §3-§9; the schema is documented in configs/models/README.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "models/workload/dtype.h"

namespace t3sim::workload {

enum class Activation { kGelu, kSwiglu };
enum class AttentionKind { kMha, kGqa, kMqa };

std::string_view to_string(Activation activation);
std::string_view to_string(AttentionKind attention);

struct ModelSpec {
  std::string name;
  std::string description;
  std::int64_t hidden = 0;       // h, model width
  std::int64_t ffn = 0;          // f, MLP width (per branch for SwiGLU)
  std::int64_t layers = 0;       // transformer layers
  std::int64_t heads = 0;        // query heads a
  std::int64_t kv_heads = 0;     // key/value heads (a for MHA, 1 for MQA)
  std::int64_t head_dim = 0;     // d
  std::int64_t attn_inner = 0;   // heads * head_dim (12288 for PaLM, != hidden)
  std::int64_t seq_len = 0;      // s
  std::int64_t micro_batch = 0;  // b
  std::int64_t vocab = 0;        // V
  Dtype dtype = Dtype::kFp16;
  Activation activation = Activation::kGelu;
  AttentionKind attention = AttentionKind::kMha;
  bool parallel_layers = false;               // PaLM-style y = x + MLP(LN(x)) + Attn(LN(x))
  std::map<std::string, std::string> source;  // key -> citation

  // T = b * s, the tokens of one micro-batch.
  std::int64_t tokens_per_micro_batch() const { return micro_batch * seq_len; }
};

// Loads and validates one model file. Any problem is a ConfigError naming the file, the JSON
// pointer and the fix (unknown keys get "did you mean").
ModelSpec load_model(const std::filesystem::path& path);
// Loads configs_dir/<name>.json; an unknown name is a ConfigError listing the available models.
ModelSpec load_model_by_name(std::string_view name, const std::filesystem::path& configs_dir);
// Model names (file stems) under configs_dir, sorted.
std::vector<std::string> available_models(const std::filesystem::path& configs_dir);

}  // namespace t3sim::workload
