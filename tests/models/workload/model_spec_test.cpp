#include "models/workload/model_spec.h"

#include <fstream>
#include <functional>

#include <gtest/gtest.h>

#include "sim/errors.h"
#include "sim/strict_json.h"
#include "tests/models/workload/test_support.h"

namespace t3sim::workload {
namespace {

using testing::models_dir;
using testing::ScratchDir;
using testing::shipped_models_dir;

// The shipped zoo (configs/models): every model there is, however many; the count is not pinned.
TEST(ModelSpec, EveryShippedModelLoadsWithACitationPerValue) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();
  const std::vector<std::string> zoo = available_models(shipped_models_dir());
  ASSERT_FALSE(zoo.empty());
  for (const auto& name : zoo) {
    const ModelSpec spec = load_model_by_name(name, shipped_models_dir());
    EXPECT_EQ(spec.name, name);
    EXPECT_EQ(spec.source.size(), 14u) << name;
    EXPECT_EQ(spec.attn_inner, spec.heads * spec.head_dim) << name;
  }
}

TEST(ModelSpec, ShippedValuesMatchWorkloadsMd) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();
  const ModelSpec tnlg = load_model_by_name("t-nlg", shipped_models_dir());
  EXPECT_EQ(tnlg.hidden, 4256);
  EXPECT_EQ(tnlg.ffn, 17024);
  EXPECT_EQ(tnlg.layers, 78);
  EXPECT_EQ(tnlg.heads, 28);
  EXPECT_EQ(tnlg.head_dim, 152);
  EXPECT_EQ(tnlg.tokens_per_micro_batch(), 8192);
  const ModelSpec palm = load_model_by_name("palm", shipped_models_dir());
  EXPECT_EQ(palm.attn_inner, 12288);
  EXPECT_EQ(palm.kv_heads, 1);
  EXPECT_EQ(palm.attention, AttentionKind::kMqa);
  EXPECT_EQ(palm.activation, Activation::kSwiglu);
  EXPECT_TRUE(palm.parallel_layers);
  const ModelSpec llama = load_model_by_name("llama3-405b", shipped_models_dir());
  EXPECT_EQ(llama.ffn, 53248);
  EXPECT_EQ(llama.kv_heads, 8);
  EXPECT_EQ(llama.attention, AttentionKind::kGqa);
  EXPECT_EQ(llama.dtype, Dtype::kBf16);
  EXPECT_EQ(llama.tokens_per_micro_batch(), 8192);
}

// Writes t-nlg.json edited by `edit` into a scratch folder and returns the load error.
ConfigError load_edited(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = read_json_file(models_dir() / "t-nlg.json");
  edit(j);
  const ScratchDir dir("workload_load_edited");
  const auto path = dir / "t-nlg.json";
  std::ofstream(path) << j.dump(2);
  try {
    load_model(path);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ConfigError";
  return ConfigError("", "", "");
}

bool contains(const ConfigError& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

TEST(ModelSpec, UnknownKeySuggestsNearest) {
  const ConfigError e = load_edited([](nlohmann::json& j) { j["hiden"] = 4256; });
  EXPECT_EQ(e.pointer(), "/hiden");
  EXPECT_TRUE(contains(e, "did you mean 'hidden'")) << e.what();
  EXPECT_TRUE(contains(e, "t-nlg.json")) << e.what();
}

TEST(ModelSpec, MissingWrongTypeAndNonPositiveAreRejected) {
  EXPECT_EQ(load_edited([](nlohmann::json& j) { j.erase("ffn"); }).pointer(), "/ffn");
  EXPECT_EQ(load_edited([](nlohmann::json& j) { j["layers"] = "78"; }).pointer(), "/layers");
  EXPECT_EQ(load_edited([](nlohmann::json& j) { j["seq_len"] = 0; }).pointer(), "/seq_len");
  EXPECT_EQ(load_edited([](nlohmann::json& j) { j["hidden"] = 4256.5; }).pointer(), "/hidden");
  EXPECT_EQ(load_edited([](nlohmann::json& j) { j["dtype"] = "fp61"; }).pointer(), "/dtype");
  EXPECT_TRUE(
      contains(load_edited([](nlohmann::json& j) { j["dtype"] = "fp61"; }), "did you mean 'fp16'"));
}

TEST(ModelSpec, InconsistentValuesAreRejected) {
  const ConfigError kv = load_edited([](nlohmann::json& j) { j["kv_heads"] = 5; });
  EXPECT_EQ(kv.pointer(), "/kv_heads");
  const ConfigError inner = load_edited([](nlohmann::json& j) { j["attn_inner"] = 4096; });
  EXPECT_EQ(inner.pointer(), "/attn_inner");
  EXPECT_TRUE(contains(inner, "heads 28 * head_dim 152")) << inner.what();
  const ConfigError kind = load_edited([](nlohmann::json& j) { j["attention"] = "gqa"; });
  EXPECT_EQ(kind.pointer(), "/attention");
  const ConfigError name = load_edited([](nlohmann::json& j) { j["name"] = "tnlg"; });
  EXPECT_EQ(name.pointer(), "/name");
}

TEST(ModelSpec, EveryValueNeedsASource) {
  const ConfigError missing = load_edited([](nlohmann::json& j) { j["source"].erase("ffn"); });
  EXPECT_EQ(missing.pointer(), "/source/ffn");
  EXPECT_TRUE(contains(missing, "chosen by t3sim")) << missing.what();
  const ConfigError extra = load_edited([](nlohmann::json& j) { j["source"]["seqlen"] = "x"; });
  EXPECT_EQ(extra.pointer(), "/source/seqlen");
  EXPECT_TRUE(contains(extra, "did you mean 'seq_len'")) << extra.what();
}

TEST(ModelSpec, UnknownModelNameListsTheZoo) {
  try {
    load_model_by_name("gpt-3", models_dir());
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e, "did you mean 'gpt3'")) << e.what();
    EXPECT_TRUE(contains(e, "llama3-405b, llama3-70b")) << e.what();
  }
  EXPECT_THROW(load_model_by_name("../models/gpt3", models_dir()), ConfigError);
}

}  // namespace
}  // namespace t3sim::workload
