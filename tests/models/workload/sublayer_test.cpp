#include "models/workload/sublayer.h"

#include <gtest/gtest.h>

#include "sim/errors.h"
#include "tests/models/workload/test_support.h"

namespace t3sim::workload {
namespace {

using testing::models_dir;

constexpr std::int64_t kMiB = 1 << 20;

ModelSpec model(const std::string& name) { return load_model_by_name(name, models_dir()); }

// K of the four AR-producing GEMMs (M = T, N = h for all four): workloads.md §10.6 for the T3
// rows; the other rows apply the same §10.1/§10.2/§10.4 algebra (GQA K/V replicated when
// kv_heads < t, SwiGLU FC-1 = 2f/t, PaLM OP K = attn_inner/t).
struct FourK {
  std::string model;
  int tp;
  std::int64_t op, fc2, fc1_dx, ip_dx;
};

const std::vector<FourK> kTable = {
    {"mega-gpt2", 8, 384, 1536, 1536, 1152},     {"mega-gpt2", 16, 192, 768, 768, 576},
    {"mega-gpt2", 32, 96, 384, 384, 288},        {"t-nlg", 8, 532, 2128, 2128, 1596},
    {"t-nlg", 16, 266, 1064, 1064, 798},         {"t-nlg", 32, 133, 532, 532, 399},
    {"gpt3", 8, 1536, 6144, 6144, 4608},         {"gpt3", 16, 768, 3072, 3072, 2304},
    {"gpt3", 32, 384, 1536, 1536, 1152},         {"mt-nlg", 8, 2560, 10240, 10240, 7680},
    {"mt-nlg", 16, 1280, 5120, 5120, 3840},      {"mt-nlg", 32, 640, 2560, 2560, 1920},
    {"palm", 8, 1536, 9216, 18432, 2048},        {"palm", 16, 768, 4608, 9216, 1280},
    {"palm", 32, 384, 2304, 4608, 896},          {"megatron-1t", 8, 3200, 12800, 12800, 9600},
    {"megatron-1t", 16, 1600, 6400, 6400, 4800}, {"megatron-1t", 32, 800, 3200, 3200, 2400},
    {"llama2-70b", 8, 1024, 3584, 7168, 1280},   {"llama2-70b", 16, 512, 1792, 3584, 768},
    {"llama2-70b", 32, 256, 896, 1792, 512},     {"llama3-70b", 8, 1024, 3584, 7168, 1280},
    {"llama3-70b", 16, 512, 1792, 3584, 768},    {"llama3-70b", 32, 256, 896, 1792, 512},
    {"llama3-405b", 8, 2048, 6656, 13312, 2304}, {"llama3-405b", 16, 1024, 3328, 6656, 1280},
    {"llama3-405b", 32, 512, 1664, 3328, 768},
};

TEST(Sublayer, FourT3GemmsOfEveryZooModel) {
  for (const FourK& row : kTable) {
    SCOPED_TRACE(row.model + " tp " + std::to_string(row.tp));
    const ModelSpec spec = model(row.model);
    const std::int64_t t = spec.tokens_per_micro_batch();
    const auto check = [&](Sublayer s, Pass p, std::int64_t k) {
      const T3Sublayer got = t3_sublayer(spec, row.tp, t, s, p);
      EXPECT_EQ(got.gemm, (GemmShape{t, spec.hidden, k, 1})) << to_string(s);
      EXPECT_EQ(got.allreduce_bytes, t * spec.hidden * 2);
    };
    check(Sublayer::kOp, Pass::kFwd, row.op);
    check(Sublayer::kFc2, Pass::kFwd, row.fc2);
    check(Sublayer::kFc1, Pass::kBwd, row.fc1_dx);
    check(Sublayer::kIp, Pass::kBwd, row.ip_dx);
  }
}

// workloads.md §10.5: b = 1, t = 8.
struct Worked {
  std::string model;
  std::int64_t tokens;
  std::int64_t ar_bytes;
  GemmShape op, fc2;
};

TEST(Sublayer, WorkedSizesOfWorkloadsMd) {
  const std::vector<Worked> rows = {
      {"mega-gpt2", 1024, 6 * kMiB, {1024, 3072, 384}, {1024, 3072, 1536}},
      {"t-nlg", 1024, 1024 * 4256 * 2, {1024, 4256, 532}, {1024, 4256, 2128}},
      {"gpt3", 2048, 48 * kMiB, {2048, 12288, 1536}, {2048, 12288, 6144}},
      {"mt-nlg", 2048, 80 * kMiB, {2048, 20480, 2560}, {2048, 20480, 10240}},
      {"palm", 2048, 72 * kMiB, {2048, 18432, 1536}, {2048, 18432, 9216}},
      {"megatron-1t", 2048, 100 * kMiB, {2048, 25600, 3200}, {2048, 25600, 12800}},
      {"llama3-405b", 8192, 256 * kMiB, {8192, 16384, 2048}, {8192, 16384, 6656}},
  };
  for (const Worked& row : rows) {
    SCOPED_TRACE(row.model);
    const ModelSpec spec = model(row.model);
    EXPECT_EQ(allreduce_bytes(spec, row.tokens), row.ar_bytes);
    EXPECT_EQ(t3_sublayer(spec, 8, row.tokens, Sublayer::kOp, Pass::kFwd).gemm, row.op);
    EXPECT_EQ(t3_sublayer(spec, 8, row.tokens, Sublayer::kFc2, Pass::kFwd).gemm, row.fc2);
  }
}

TEST(Sublayer, ArPayloadsAtThousandTokens) {  // workloads.md §10.6 closing example, T = 1024
  EXPECT_EQ(allreduce_bytes(model("mega-gpt2"), 1024), 6 * kMiB);
  EXPECT_EQ(allreduce_bytes(model("t-nlg"), 1024), 8 * kMiB + kMiB * 5 / 16);  // 8.3125 MiB
  EXPECT_EQ(allreduce_bytes(model("gpt3"), 1024), 24 * kMiB);
  EXPECT_EQ(allreduce_bytes(model("mt-nlg"), 1024), 40 * kMiB);
  EXPECT_EQ(allreduce_bytes(model("palm"), 1024), 36 * kMiB);
}

TEST(Sublayer, ForwardAndWeightGradShapes) {  // workloads.md §10.1, §10.2 for T-NLG at TP 8
  const ModelSpec spec = model("t-nlg");
  const auto ip_fwd = sublayer_gemms(spec, 8, 8192, Sublayer::kIp, Pass::kFwd);
  ASSERT_EQ(ip_fwd.size(), 1u);
  EXPECT_EQ(ip_fwd[0].shape, (GemmShape{8192, 1596, 4256}));
  const auto fc1_bwd = sublayer_gemms(spec, 8, 8192, Sublayer::kFc1, Pass::kBwd);
  ASSERT_EQ(fc1_bwd.size(), 2u);
  EXPECT_EQ(fc1_bwd[0].role, GemmRole::kDx);
  EXPECT_EQ(fc1_bwd[1].role, GemmRole::kDw);
  EXPECT_EQ(fc1_bwd[1].shape, (GemmShape{4256, 2128, 8192}));
  const auto fc2_bwd = sublayer_gemms(spec, 8, 8192, Sublayer::kFc2, Pass::kBwd);
  EXPECT_EQ(fc2_bwd[0].shape, (GemmShape{8192, 2128, 4256}));
  EXPECT_EQ(fc2_bwd[1].shape, (GemmShape{2128, 4256, 8192}));
  const auto op_bwd = sublayer_gemms(spec, 8, 8192, Sublayer::kOp, Pass::kBwd);
  EXPECT_EQ(op_bwd[0].shape, (GemmShape{8192, 532, 4256}));
}

TEST(Sublayer, AttentionCoreIsBatchedOverLocalHeads) {
  const ModelSpec gpt3 = model("gpt3");  // 96 heads / 8 = 12 per GPU, b = 1, s = 2048, d = 128
  const auto fwd = sublayer_gemms(gpt3, 8, 2048, Sublayer::kAttn, Pass::kFwd);
  ASSERT_EQ(fwd.size(), 2u);
  EXPECT_EQ(fwd[0].shape, (GemmShape{2048, 2048, 128, 12}));
  EXPECT_EQ(fwd[1].shape, (GemmShape{2048, 128, 2048, 12}));
  EXPECT_EQ(sublayer_gemms(gpt3, 8, 2048, Sublayer::kAttn, Pass::kBwd).size(), 4u);
  // T-NLG: 28 heads over 8 GPUs -> the busiest GPU holds 4; 8 sequences of 1024.
  const auto tnlg = sublayer_gemms(model("t-nlg"), 8, 8192, Sublayer::kAttn, Pass::kFwd);
  EXPECT_EQ(tnlg[0].shape, (GemmShape{1024, 1024, 152, 32}));
}

TEST(Sublayer, SliceOfGqaAndMqa) {
  const TpSlice llama = tp_slice(model("llama3-405b"), 8, 8192);
  EXPECT_EQ(llama.q_cols, 2048);
  EXPECT_EQ(llama.kv_cols, 128);  // 8 KV heads / 8 GPUs = 1 each
  EXPECT_EQ(llama.fc1_cols, 13312);
  const TpSlice palm = tp_slice(model("palm"), 32, 2048);
  EXPECT_EQ(palm.kv_cols, 256);  // the single K/V head replicated
  EXPECT_EQ(palm.heads_per_rank, 2);
}

TEST(Sublayer, ParsePrint) {
  for (const char* name : {"ip", "attn", "op", "fc1", "fc2"}) {
    EXPECT_EQ(to_string(*parse_sublayer(name)), name);
  }
  EXPECT_FALSE(parse_sublayer("qkv").has_value());
  EXPECT_EQ(parse_pass("bwd"), Pass::kBwd);
  EXPECT_FALSE(parse_pass("both").has_value());
  EXPECT_EQ(to_string(GemmRole::kDw), "dw");
}

TEST(Sublayer, BadTpAndTokensAreConfigErrors) {
  const ModelSpec tnlg = model("t-nlg");
  try {
    tp_slice(tnlg, 3, 8192);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/tp");
    EXPECT_NE(std::string(e.what()).find("valid TP degrees: 1, 2, 4, 7, 8"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(tp_slice(tnlg, 0, 8192), ConfigError);
  EXPECT_THROW(tp_slice(tnlg, 8192, 8192), ConfigError);
  EXPECT_THROW(tp_slice(tnlg, 8, 0), ConfigError);
  EXPECT_THROW(tp_slice(tnlg, 8, (std::int64_t{1} << 24) + 1), ConfigError);
  EXPECT_THROW(tp_slice(tnlg, 8, 1536), ConfigError);  // 1.5 sequences of 1024
  EXPECT_EQ(tp_slice(tnlg, 8, 512).seq, 512);          // one shorter sequence is fine
  EXPECT_THROW(t3_sublayer(tnlg, 8, 8192, Sublayer::kOp, Pass::kBwd), ConfigError);
}

}  // namespace
}  // namespace t3sim::workload
