#include "models/workload/model_spec.h"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "sim/errors.h"
#include "sim/strict_json.h"

namespace t3sim::workload {
namespace {

constexpr std::int64_t kMaxModelDim = std::int64_t{1} << 24;

struct NumericKey {
  std::string_view key;
  std::int64_t max;
  std::int64_t ModelSpec::*field;
};

// Numeric keys, in file order, with their upper bounds.
constexpr std::array<NumericKey, 10> kNumericKeys = {{
    {"hidden", kMaxModelDim, &ModelSpec::hidden},
    {"ffn", kMaxModelDim, &ModelSpec::ffn},
    {"layers", 1 << 20, &ModelSpec::layers},
    {"heads", kMaxModelDim, &ModelSpec::heads},
    {"kv_heads", kMaxModelDim, &ModelSpec::kv_heads},
    {"head_dim", kMaxModelDim, &ModelSpec::head_dim},
    {"attn_inner", kMaxModelDim, &ModelSpec::attn_inner},
    {"seq_len", kMaxModelDim, &ModelSpec::seq_len},
    {"micro_batch", 1 << 20, &ModelSpec::micro_batch},
    {"vocab", std::int64_t{1} << 31, &ModelSpec::vocab},
}};

// Keys that describe the architecture and therefore need a "source" entry.
std::vector<std::string> cited_keys() {
  std::vector<std::string> keys;
  for (const auto& numeric : kNumericKeys) keys.emplace_back(numeric.key);
  for (const char* key : {"dtype", "activation", "attention", "parallel_layers"}) {
    keys.emplace_back(key);
  }
  return keys;
}

std::vector<std::string> all_keys() {
  std::vector<std::string> keys = {"kind", "name", "description", "source"};
  for (auto& key : cited_keys()) keys.push_back(std::move(key));
  return keys;
}

template <typename Enum>
Enum parse_choice(const ObjectReader& reader, std::string_view key,
                  const std::vector<std::pair<std::string, Enum>>& choices) {
  const std::string value = reader.string(key);
  std::vector<std::string> names;
  for (const auto& [name, e] : choices) {
    if (name == value) return e;
    names.push_back(name);
  }
  reader.fail(key, fmt::format("\"{}\" is \"{}\"{}; use one of: {}", key, value,
                               did_you_mean(value, names), join(names, ", ")));
}

void read_sources(const ObjectReader& model, ModelSpec& spec) {
  const ObjectReader source(model.get("source"), model.file(), model.pointer("source"),
                            "model \"source\"");
  const std::vector<std::string> cited = cited_keys();
  source.allow_only(cited);
  for (const auto& key : cited) {
    if (!source.has(key)) {
      source.fail(key, fmt::format("no citation for \"{}\"; add \"{}\": \"<workloads.md §N "
                                   "[label]>\" or \"chosen by t3sim: <reason>\"",
                                   key, key));
    }
    std::string citation = source.string(key);
    if (citation.empty()) source.fail(key, "citation is empty; say where the value comes from");
    spec.source[key] = std::move(citation);
  }
}

void check_consistency(const ObjectReader& model, const ModelSpec& spec) {
  if (spec.heads % spec.kv_heads != 0) {
    model.fail("kv_heads", fmt::format("heads {} is not a multiple of kv_heads {}; use a divisor",
                                       spec.heads, spec.kv_heads));
  }
  if (spec.attn_inner != spec.heads * spec.head_dim) {
    model.fail("attn_inner",
               fmt::format("attn_inner {} != heads {} * head_dim {} = {}; fix one", spec.attn_inner,
                           spec.heads, spec.head_dim, spec.heads * spec.head_dim));
  }
  const bool agrees =
      (spec.attention == AttentionKind::kMha && spec.kv_heads == spec.heads) ||
      (spec.attention == AttentionKind::kMqa && spec.kv_heads == 1) ||
      (spec.attention == AttentionKind::kGqa && spec.kv_heads > 1 && spec.kv_heads < spec.heads);
  if (!agrees) {
    model.fail("attention",
               fmt::format("\"{}\" does not fit kv_heads {} with heads {}; use mha when kv_heads "
                           "== heads, mqa when kv_heads == 1, gqa otherwise",
                           to_string(spec.attention), spec.kv_heads, spec.heads));
  }
}

ModelSpec parse_model(const nlohmann::json& json, const std::filesystem::path& path) {
  const ObjectReader model(json, path.string(), "", "model");
  model.allow_only(all_keys());
  if (model.string("kind") != "model") {
    model.fail("kind", "\"kind\" must be \"model\" for files under configs/models/");
  }
  ModelSpec spec;
  spec.name = model.string("name");
  if (spec.name != path.stem().string()) {
    model.fail("name", fmt::format("name \"{}\" differs from the file name \"{}\"; make them equal",
                                   spec.name, path.filename().string()));
  }
  spec.description = model.string("description");
  for (const auto& numeric : kNumericKeys) {
    spec.*numeric.field = model.integer(numeric.key, 1, numeric.max);
  }
  spec.dtype =
      parse_choice<Dtype>(model, "dtype", {{"fp16", Dtype::kFp16}, {"bf16", Dtype::kBf16}});
  spec.activation = parse_choice<Activation>(
      model, "activation", {{"gelu", Activation::kGelu}, {"swiglu", Activation::kSwiglu}});
  spec.attention = parse_choice<AttentionKind>(
      model, "attention",
      {{"mha", AttentionKind::kMha}, {"gqa", AttentionKind::kGqa}, {"mqa", AttentionKind::kMqa}});
  spec.parallel_layers = model.boolean("parallel_layers");
  check_consistency(model, spec);
  read_sources(model, spec);
  return spec;
}

}  // namespace

std::string_view to_string(Activation activation) {
  return activation == Activation::kGelu ? "gelu" : "swiglu";
}

std::string_view to_string(AttentionKind attention) {
  switch (attention) {
    case AttentionKind::kMha:
      return "mha";
    case AttentionKind::kGqa:
      return "gqa";
    case AttentionKind::kMqa:
      return "mqa";
  }
  return "mha";
}

ModelSpec load_model(const std::filesystem::path& path) {
  return parse_model(read_json_file(path), path);
}

std::vector<std::string> available_models(const std::filesystem::path& configs_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(configs_dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

ModelSpec load_model_by_name(std::string_view name, const std::filesystem::path& configs_dir) {
  const std::vector<std::string> names = available_models(configs_dir);
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    throw ConfigError(
        configs_dir.string(), "",
        fmt::format("unknown model '{}'{}; available models: {}", name, did_you_mean(name, names),
                    names.empty() ? "(none: check the configs folder)" : join(names, ", ")));
  }
  return load_model(configs_dir / (std::string(name) + ".json"));
}

}  // namespace t3sim::workload
