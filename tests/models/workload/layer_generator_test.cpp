#include "models/workload/layer_generator.h"

#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include "sim/errors.h"
#include "tests/models/workload/test_support.h"

namespace t3sim::workload {
namespace {

using testing::models_dir;

ModelSpec model(const std::string& name) { return load_model_by_name(name, models_dir()); }

const Op& find(const Trace& trace, const std::string& id) {
  const auto it =
      std::find_if(trace.ops.begin(), trace.ops.end(), [&](const Op& op) { return op.id == id; });
  if (it == trace.ops.end()) throw std::runtime_error("no op " + id);
  return *it;
}

std::vector<const Op*> of_kind(const Trace& trace, OpKind kind) {
  std::vector<const Op*> out;
  for (const Op& op : trace.ops) {
    if (op.kind == kind) out.push_back(&op);
  }
  return out;
}

TEST(LayerGenerator, SequentialLayerHasFourAllReducesAfterTheT3Gemms) {
  const ModelSpec spec = model("mt-nlg");
  const Trace trace = generate_layer(spec, {.tp = 8});
  EXPECT_EQ(trace.ops.size(), 30u);
  const auto ars = of_kind(trace, OpKind::kAllReduce);
  ASSERT_EQ(ars.size(), 4u);
  const std::map<std::string, std::string> producer = {{"L0.fwd.op.all_reduce", "L0.fwd.op.gemm"},
                                                       {"L0.fwd.fc2.all_reduce", "L0.fwd.fc2.gemm"},
                                                       {"L0.bwd.fc1.all_reduce", "L0.bwd.fc1.dx"},
                                                       {"L0.bwd.ip.all_reduce", "L0.bwd.ip.dx"}};
  for (const Op* ar : ars) {
    SCOPED_TRACE(ar->id);
    EXPECT_EQ(ar->deps, std::vector<std::string>{producer.at(ar->id)});
    EXPECT_EQ(ar->bytes, 2048 * 20480 * 2);
    EXPECT_EQ(ar->stream, kCommStream);
    EXPECT_EQ(ar->tp_group, 8);
    const Op& gemm = find(trace, producer.at(ar->id));
    EXPECT_EQ(gemm.sublayer, ar->sublayer);
    EXPECT_EQ(gemm.shape.m, 2048);
    EXPECT_EQ(gemm.shape.n, 20480);
  }
  EXPECT_EQ(find(trace, "L0.fwd.fc2.gemm").shape, (GemmShape{2048, 20480, 10240}));
  EXPECT_EQ(find(trace, "L0.bwd.ip.dx").shape, (GemmShape{2048, 20480, 7680}));
}

TEST(LayerGenerator, GemmShapesMatchTheSublayerAlgebra) {
  for (const char* name : {"t-nlg", "palm", "llama3-405b"}) {
    const ModelSpec spec = model(name);
    const Trace trace = generate_layer(spec, {.tp = 16});
    for (const Op& op : trace.ops) {
      if (op.kind != OpKind::kGemm) continue;
      const auto gemms =
          sublayer_gemms(spec, 16, spec.tokens_per_micro_batch(), *op.sublayer, *op.pass);
      const bool listed = std::any_of(gemms.begin(), gemms.end(),
                                      [&](const SublayerGemm& g) { return g.shape == op.shape; });
      EXPECT_TRUE(listed) << name << " " << op.id;
    }
  }
}

TEST(LayerGenerator, ForwardOrderAndMemoryOps) {
  const ModelSpec spec = model("mt-nlg");
  const Trace trace = generate_layer(spec, {.tp = 8, .passes = PassSelection::kFwd});
  std::vector<std::string> ids;
  for (const Op& op : trace.ops) ids.push_back(op.id);
  const std::vector<std::string> expected = {
      "L0.fwd.ln1",      "L0.fwd.ip.gemm", "L0.fwd.attn.qk",       "L0.fwd.attn.softmax",
      "L0.fwd.attn.pv",  "L0.fwd.op.gemm", "L0.fwd.op.all_reduce", "L0.fwd.ln2",
      "L0.fwd.fc1.gemm", "L0.fwd.act",     "L0.fwd.fc2.gemm",      "L0.fwd.fc2.all_reduce"};
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(find(trace, "L0.fwd.ln1").bytes, 2LL * 2048 * 20480 * 2);
  EXPECT_EQ(find(trace, "L0.fwd.attn.softmax").bytes, 2LL * 16 * 2048 * 2048 * 2);
  EXPECT_EQ(find(trace, "L0.fwd.act").bytes, 2LL * 2048 * 10240 * 2);
  EXPECT_EQ(find(trace, "L0.fwd.attn.qk").shape, (GemmShape{2048, 2048, 160, 16}));
  for (const Op& op : trace.ops) {
    EXPECT_EQ(op.dtype, Dtype::kFp16);
    EXPECT_EQ(op.pass, Pass::kFwd);
    EXPECT_EQ(op.stream, is_collective(op.kind) ? kCommStream : kComputeStream) << op.id;
  }
}

TEST(LayerGenerator, PassSelectionAndChaining) {
  const ModelSpec spec = model("t-nlg");
  const Trace bwd = generate_layer(spec, {.tp = 8, .passes = PassSelection::kBwd});
  EXPECT_EQ(bwd.ops.size(), 18u);
  EXPECT_EQ(bwd.ops.front().id, "L0.bwd.fc2.dx");
  EXPECT_TRUE(bwd.ops.front().deps.empty());
  const Trace both = generate_layer(spec, {.tp = 8, .layer_index = 3});
  EXPECT_EQ(find(both, "L3.bwd.fc2.dx").deps, std::vector<std::string>{"L3.fwd.fc2.all_reduce"});
  EXPECT_EQ(find(both, "L3.bwd.ip.dx").deps,
            (std::vector<std::string>{"L3.bwd.attn.dq", "L3.bwd.attn.dk", "L3.bwd.attn.dv"}));
  EXPECT_EQ(both.metadata.tokens, 8192);
  EXPECT_EQ(both.metadata.model, "t-nlg");
}

TEST(LayerGenerator, SequenceParallelismReplacesAllReduces) {
  const ModelSpec spec = model("gpt3");
  const Trace trace = generate_layer(spec, {.tp = 8, .sequence_parallel = true});
  EXPECT_TRUE(of_kind(trace, OpKind::kAllReduce).empty());
  EXPECT_EQ(of_kind(trace, OpKind::kReduceScatter).size(), 4u);
  EXPECT_EQ(of_kind(trace, OpKind::kAllGather).size(), 6u);  // 2 fwd, 2 dY + 2 re-gathers bwd
  EXPECT_EQ(find(trace, "L0.fwd.ip.gemm").deps, std::vector<std::string>{"L0.fwd.ip.all_gather"});
  EXPECT_EQ(find(trace, "L0.fwd.op.reduce_scatter").bytes, 2048LL * 12288 * 2);
  EXPECT_EQ(find(trace, "L0.fwd.ln1").bytes, 2LL * 256 * 12288 * 2);  // T / t tokens
  EXPECT_THROW(generate_layer(spec, {.tp = 8, .tokens = 1001, .sequence_parallel = true}),
               ConfigError);
}

TEST(LayerGenerator, ParallelLayersShareOneReductionPerPass) {
  const ModelSpec spec = model("palm");
  const Trace trace = generate_layer(spec, {.tp = 32});
  const auto ars = of_kind(trace, OpKind::kAllReduce);
  ASSERT_EQ(ars.size(), 2u);
  EXPECT_EQ(ars[0]->deps, (std::vector<std::string>{"L0.fwd.op.gemm", "L0.fwd.fc2.gemm"}));
  EXPECT_EQ(ars[1]->deps, (std::vector<std::string>{"L0.bwd.fc1.dx", "L0.bwd.ip.dx"}));
  EXPECT_EQ(find(trace, "L0.fwd.fc1.gemm").deps, std::vector<std::string>{"L0.fwd.ln1"});
  EXPECT_EQ(find(trace, "L0.fwd.act").bytes, 3LL * 2048 * 2304 * 2);  // SwiGLU: 2 in, 1 out
}

TEST(LayerGenerator, ParsesPassSelection) {
  EXPECT_EQ(parse_pass_selection("both"), PassSelection::kBoth);
  EXPECT_FALSE(parse_pass_selection("all").has_value());
}

}  // namespace
}  // namespace t3sim::workload
