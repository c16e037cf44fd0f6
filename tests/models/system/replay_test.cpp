// Trace replay on t3-ring-8 with small shapes (Mega-GPT-2 at TP 8, 1024 tokens): fused pairs equal
// their run_sublayer totals, streams and deps are honoured, fixed ops are exact, identical
// simulations run once, the Kineto sample imports and replays, and bad traces are ConfigErrors.
#include "models/system/replay.h"

#include <gtest/gtest.h>

#include <map>

#include "models/system/sublayer.h"
#include "models/system/system.h"
#include "models/workload/kineto_import.h"
#include "models/workload/layer_generator.h"
#include "sim/errors.h"
#include "sim/strict_json.h"
#include "tests/support/fixtures.h"

namespace t3sim::system {
namespace {

using workload::Op;
using workload::OpKind;
using workload::Trace;

const std::filesystem::path kSource = T3SIM_SOURCE_DIR;
const std::filesystem::path kConfigs = t3sim::testing::fixtures_dir();

const ConfigDoc& ring8() {
  static const ConfigDoc doc = load_system_config("t3-ring-8", kConfigs);
  return doc;
}

workload::ModelSpec mega_gpt2() {
  return workload::load_model_by_name("mega-gpt2", kConfigs / "models");
}

Op gemm_op(const std::string& id, workload::GemmShape shape, int stream = 0,
           std::vector<std::string> deps = {}) {
  Op op;
  op.id = id;
  op.kind = OpKind::kGemm;
  op.shape = shape;
  op.dtype = workload::Dtype::kFp16;
  op.stream = stream;
  op.deps = std::move(deps);
  return op;
}

Op bytes_op(const std::string& id, OpKind kind, int64_t bytes, int stream,
            std::vector<std::string> deps = {}) {
  Op op;
  op.id = id;
  op.kind = kind;
  op.bytes = bytes;
  if (kind != OpKind::kMemory) op.dtype = workload::Dtype::kFp16;
  op.stream = stream;
  op.deps = std::move(deps);
  op.tp_group = 8;
  return op;
}

Op fixed_op(const std::string& id, double us, int stream, std::vector<std::string> deps = {}) {
  Op op;
  op.id = id;
  op.duration_us = us;
  op.stream = stream;
  op.deps = std::move(deps);
  return op;
}

SublayerSpec spec_of(const workload::GemmShape& s) {
  SublayerSpec spec;
  spec.shape = {static_cast<uint64_t>(s.m), static_cast<uint64_t>(s.n), static_cast<uint64_t>(s.k)};
  return spec;
}

// Checks the schedule's invariants: deps end before an op starts; ops of a stream run in trace
// order without overlapping; the total is the latest end.
void expect_valid_schedule(const Trace& t, const ReplayResult& r) {
  ASSERT_EQ(r.ops.size(), t.ops.size());
  std::map<std::string, const ReplayOp*> by_id;
  for (const auto& op : r.ops) by_id[op.id] = &op;
  std::map<int, double> stream_end;
  double latest = 0;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const ReplayOp& op = r.ops[i];
    EXPECT_EQ(op.id, t.ops[i].id);
    EXPECT_GE(op.duration_us, 0.0) << op.id;
    for (const auto& d : t.ops[i].deps)
      EXPECT_GE(op.start_us, by_id.at(d)->end_us() - 1e-9) << op.id;
    EXPECT_GE(op.start_us, stream_end[op.stream] - 1e-9) << op.id;
    stream_end[op.stream] = op.end_us();
    latest = std::max(latest, op.end_us());
  }
  EXPECT_DOUBLE_EQ(r.total_us, latest);
}

TEST(Replay, TwoIndependentPairsOnOneStreamSumTheirSublayerTotals) {
  const auto model = mega_gpt2();
  const auto fc2 =
      workload::t3_sublayer(model, 8, 1024, workload::Sublayer::kFc2, workload::Pass::kFwd);
  const auto op =
      workload::t3_sublayer(model, 8, 1024, workload::Sublayer::kOp, workload::Pass::kFwd);
  const double want = run_sublayer(ring8(), spec_of(fc2.gemm), Mode::kSequential).total_us +
                      run_sublayer(ring8(), spec_of(op.gemm), Mode::kSequential).total_us;
  for (int comm_stream : {0, 1}) {
    Trace t;
    t.ops = {gemm_op("g1", fc2.gemm),
             bytes_op("ar1", OpKind::kAllReduce, fc2.allreduce_bytes, comm_stream, {"g1"}),
             gemm_op("g2", op.gemm),
             bytes_op("ar2", OpKind::kAllReduce, op.allreduce_bytes, comm_stream, {"g2"})};
    const ReplayResult r = replay_trace(ring8(), t, "pairs.json");
    expect_valid_schedule(t, r);
    EXPECT_NEAR(r.total_us, want, 1e-6) << "comm stream " << comm_stream;
    EXPECT_EQ(r.ops[0].model, "fused");
    EXPECT_EQ(r.ops[0].fused_with, "ar1");
    EXPECT_EQ(r.ops[3].fused_with, "g2");
    EXPECT_DOUBLE_EQ(r.ops[2].start_us, r.ops[1].end_us());  // pair 2 waits for pair 1
    EXPECT_EQ(r.simulations, 2u);
  }
}

TEST(Replay, FusedPairSplitsIntoModeGemmTimeAndExposedComm) {
  const auto fc2 =
      workload::t3_sublayer(mega_gpt2(), 8, 1024, workload::Sublayer::kFc2, workload::Pass::kFwd);
  Trace t;
  t.ops = {gemm_op("g", fc2.gemm),
           bytes_op("ar", OpKind::kAllReduce, fc2.allreduce_bytes, 1, {"g"})};
  const SublayerResult s = run_sublayer(ring8(), spec_of(fc2.gemm), Mode::kT3Mca);
  const ReplayResult r = replay_trace(ring8(), t, "t3.json", {.mode = Mode::kT3Mca});
  EXPECT_EQ(r.mode, Mode::kT3Mca);
  EXPECT_NEAR(r.ops[0].duration_us, s.gemm_us, 1e-6);
  EXPECT_NEAR(r.ops[1].start_us, s.gemm_us, 1e-6);
  EXPECT_NEAR(r.total_us, s.total_us, 1e-6);
}

// Sequence parallelism: a GEMM and the reduce-scatter of its output fuse like a GEMM and its
// all-reduce; the pair ends with the reduce-scatter (the all-gather is its own op).
TEST(Replay, SequenceParallelGemmAndReduceScatterFuse) {
  const auto fc2 =
      workload::t3_sublayer(mega_gpt2(), 8, 1024, workload::Sublayer::kFc2, workload::Pass::kFwd);
  Trace t;
  t.ops = {gemm_op("g", fc2.gemm),
           bytes_op("rs", OpKind::kReduceScatter, fc2.allreduce_bytes, 1, {"g"})};
  const SublayerResult s = run_sublayer(ring8(), spec_of(fc2.gemm), Mode::kT3Mca);
  const ReplayResult r = replay_trace(ring8(), t, "sp.json", {.mode = Mode::kT3Mca});
  EXPECT_EQ(r.ops[0].fused_with, "rs");
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_NEAR(r.total_us, s.total_us - s.ag_us, 1e-6);
  const ReplayResult seq = replay_trace(ring8(), t, "sp.json");
  EXPECT_LT(r.total_us, seq.total_us);  // t3-mca overlaps the reduce-scatter with the GEMM
  // A whole sequence-parallel layer: every forward reduce-scatter is fused under t3-mca.
  workload::LayerOptions options;
  options.tp = 8;
  options.tokens = 1024;
  options.passes = workload::PassSelection::kFwd;
  options.sequence_parallel = true;
  const Trace layer = workload::generate_layer(mega_gpt2(), options);
  const ReplayResult lr = replay_trace(ring8(), layer, "layer.json", {.mode = Mode::kT3Mca});
  int fused_rs = 0;
  for (const ReplayOp& op : lr.ops) {
    fused_rs += op.kind == OpKind::kReduceScatter && !op.fused_with.empty() ? 1 : 0;
  }
  EXPECT_EQ(fused_rs, 2);  // OP and FC-2
  EXPECT_TRUE(lr.warnings.empty());
}

// A fusing mode that finds no GEMM + collective pair says so; sequential never warns.
TEST(Replay, FusingModeThatFusesNothingWarns) {
  Trace t;
  t.ops = {fixed_op("a", 1, 0), fixed_op("b", 2, 0)};
  const ReplayResult r = replay_trace(ring8(), t, "none.json", {.mode = Mode::kT3});
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("fused nothing"), std::string::npos) << r.warnings[0];
  EXPECT_TRUE(replay_trace(ring8(), t, "none.json").warnings.empty());
}

TEST(Replay, GeneratedLayerHonoursStreamsAndDeps) {
  workload::LayerOptions options;
  options.tp = 8;
  options.tokens = 1024;
  for (bool sp : {false, true}) {
    options.sequence_parallel = sp;
    const Trace t = workload::generate_layer(mega_gpt2(), options);
    const ReplayResult r = replay_trace(ring8(), t, "layer.json");
    expect_valid_schedule(t, r);
    EXPECT_GT(r.memo_hits, 0u);  // LayerNorm, attention GEMMs and collectives repeat
    int fused = 0;
    for (const auto& op : r.ops) fused += op.fused_with.empty() ? 0 : 1;
    // Four GEMM + all-reduce pairs, or with sequence parallelism four GEMM + reduce-scatter pairs.
    EXPECT_EQ(fused, 8) << (sp ? "sequence parallel" : "all-reduce");
  }
}

TEST(Replay, CrossStreamDepOnALaterOpAndExactFixedTimes) {
  Trace t;
  t.ops = {fixed_op("a", 2.5, 0, {"c"}), fixed_op("b", 1.25, 0), fixed_op("c", 10.0, 1),
           fixed_op("d", 0.125, 2, {"a", "b"})};
  const ReplayResult r = replay_trace(ring8(), t, "fixed.json");
  expect_valid_schedule(t, r);
  EXPECT_EQ(r.ops[0].start_us, 10.0);
  EXPECT_EQ(r.ops[0].duration_us, 2.5);
  EXPECT_EQ(r.ops[1].start_us, 12.5);
  EXPECT_EQ(r.ops[3].start_us, 13.75);
  EXPECT_EQ(r.ops[3].duration_us, 0.125);
  EXPECT_EQ(r.total_us, 13.875);
  EXPECT_EQ(r.simulations, 0u);
}

void expect_config_error(const Trace& t, const std::string& pointer, const std::string& text) {
  try {
    replay_trace(ring8(), t, "bad.json");
    ADD_FAILURE() << "expected a ConfigError at " << pointer;
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "bad.json");
    EXPECT_EQ(e.pointer(), pointer);
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(Replay, UnfusedOpsGetIsolatedModelTimesOnce) {
  const auto fc2 =
      workload::t3_sublayer(mega_gpt2(), 8, 1024, workload::Sublayer::kFc2, workload::Pass::kFwd);
  Trace t;
  t.ops = {gemm_op("g", fc2.gemm),
           bytes_op("ar", OpKind::kAllReduce, fc2.allreduce_bytes, 1, {"g"}),
           bytes_op("other", OpKind::kMemory, 8 << 20, 0, {"g"}),  // a second consumer of g
           bytes_op("again", OpKind::kMemory, 8 << 20, 0),
           gemm_op("batched", {256, 128, 64, 4}, 2),
           gemm_op("flat", {1024, 128, 64}, 2)};
  const ReplayResult r = replay_trace(ring8(), t, "unfused.json");
  expect_valid_schedule(t, r);
  EXPECT_EQ(r.ops[0].model, "gemm");
  EXPECT_EQ(r.ops[1].model, "collective");
  EXPECT_DOUBLE_EQ(r.ops[0].duration_us,
                   run_piece(ring8(), spec_of(fc2.gemm), Piece::kGemm).total_us);
  EXPECT_EQ(r.ops[2].duration_us, r.ops[3].duration_us);
  const double gbps = (8 << 20) / (r.ops[2].duration_us * 1e3);
  EXPECT_GT(gbps, 500.0);  // streamed HBM bandwidth of the 1 TB/s part
  EXPECT_LT(gbps, 1000.0);
  // A batch of 4 products reads 4 B operands where the flattened GEMM reads one: never faster.
  EXPECT_GE(r.ops[4].duration_us, r.ops[5].duration_us);
  EXPECT_EQ(r.simulations, 5u);  // gemm, all-reduce, memory, batched gemm, flat gemm
  EXPECT_EQ(r.memo_hits, 1u);
}

// A batched GEMM is its own shape: b products, each reading its own A and B, not one GEMM of
// M x b rows that shares B.
TEST(Replay, BatchedGemmReadsEveryProductsOperands) {
  SublayerSpec batched;
  batched.shape = {256, 128, 64, 4};
  SublayerSpec flat;
  flat.shape = {1024, 128, 64};
  const SublayerResult b = run_piece(ring8(), batched, Piece::kGemm);
  const SublayerResult f = run_piece(ring8(), flat, Piece::kGemm);
  const auto reads = [](const SublayerResult& r) {
    return r.dram_bytes[static_cast<size_t>(common::TrafficClass::kGemmRead)];
  };
  const uint64_t b_operand = 64 * 128 * 2;
  EXPECT_GE(reads(b), reads(f) + 3 * b_operand);
  EXPECT_EQ(b.dram_bytes[static_cast<size_t>(common::TrafficClass::kGemmWrite)],
            f.dram_bytes[static_cast<size_t>(common::TrafficClass::kGemmWrite)]);
}

// The dtype picks the preset's matrix rate: a compute-bound H100 GEMM takes about twice as long
// in TF32 as in FP16 (494.7 vs 989.4 TFLOP/s) and far longer without tensor cores (FP32 SIMT);
// a preset without the rate refuses the op.
TEST(Replay, GemmPrecisionPicksTheMatrixRate) {
  static const ConfigDoc h100 = load_system_config("dgx-h100", kConfigs);
  Trace t;
  t.ops = {gemm_op("fp16", {2048, 2048, 2048}), gemm_op("tf32", {2048, 2048, 2048}),
           gemm_op("fp32", {2048, 2048, 2048})};
  t.ops[1].dtype = workload::Dtype::kTf32;
  t.ops[2].dtype = workload::Dtype::kFp32;
  const ReplayResult r = replay_trace(h100, t, "precision.json");
  const double tf32 = r.ops[1].duration_us / r.ops[0].duration_us;
  const double fp32 = r.ops[2].duration_us / r.ops[0].duration_us;
  EXPECT_GT(tf32, 1.6);
  EXPECT_LT(tf32, 2.2);
  EXPECT_GT(fp32, 10.0);
  Trace on_t3;
  on_t3.ops = {gemm_op("g", {256, 256, 256})};
  on_t3.ops[0].dtype = workload::Dtype::kTf32;
  expect_config_error(on_t3, "/ops/0/dtype", "flops_per_cu_cycle_tf32");
}

// An imported profile's idle time is waited out: a trace of fixed ops replays to its span.
TEST(Replay, ImportedIdleTimeIsKept) {
  const auto path =
      kSource / "tests" / "models" / "workload" / "kineto_data" / "kineto_resnet50.json";
  const workload::KinetoImport k =
      workload::import_kineto_profile(read_json_file(path), path.string());
  const ReplayResult r = replay_trace(ring8(), k.trace, path.string());
  double busy = 0;  // fixed ops their measured time, memory ops (batch norm, add) simulated
  for (const auto& op : r.ops) busy += op.duration_us;
  EXPECT_NEAR(r.total_us, busy + k.summary.idle_us, 1e-6);  // one stream: busy plus idle kept
  EXPECT_NEAR(r.idle_us, k.summary.idle_us, 1e-6);
  const workload::KinetoImport d =
      workload::import_kineto_profile(read_json_file(path), path.string(), {.keep_idle = false});
  const ReplayResult packed = replay_trace(ring8(), d.trace, path.string());
  EXPECT_NEAR(packed.total_us, busy, 1e-6);  // one stream, idle dropped: the busy time
}

TEST(Replay, KinetoSampleImportsAndReplays) {
  const auto path = kSource / "traces" / "samples" / "kineto_tp_sublayer.json";
  const Trace t = workload::import_kineto(read_json_file(path), path.string());
  const ReplayResult r = replay_trace(ring8(), t, path.string());
  expect_valid_schedule(t, r);
  ASSERT_EQ(r.ops.size(), 3u);
  EXPECT_EQ(r.ops[0].fused_with, r.ops[1].id);
  EXPECT_GT(t.ops[2].idle_us, 0.0);  // the profile's gap before the residual add is kept
  EXPECT_DOUBLE_EQ(r.ops[2].start_us, r.ops[1].end_us() + t.ops[2].idle_us);
  EXPECT_EQ(t.ops[2].kind, OpKind::kMemory);  // the residual add, simulated from its bytes
  EXPECT_GT(r.ops[2].duration_us, 0.0);
  ASSERT_TRUE(r.ops[0].measured_us.has_value());
  const auto j = to_json(r);
  EXPECT_EQ(j.at("ops").size(), 3u);
  EXPECT_EQ(j.at("mode"), "sequential");
  EXPECT_EQ(j.at("system"), "t3-ring-8");
  EXPECT_DOUBLE_EQ(j.at("total_us").get<double>(), r.total_us);
}

TEST(Replay, BadTracesAreConfigErrors) {
  Trace tp4;
  tp4.ops = {fixed_op("x", 1, 0), bytes_op("ar", OpKind::kAllReduce, 1 << 20, 1, {"x"})};
  tp4.ops[1].tp_group = 4;
  expect_config_error(tp4, "/ops/1/tp_group", "--set gpus=4");
  tp4.ops[1].tp_group = 8;
  tp4.metadata.tp = 16;
  expect_config_error(tp4, "/metadata/tp", "system with 16 GPUs");
  Trace deadlock;  // a waits for b, which is queued behind a on stream 0
  deadlock.ops = {fixed_op("a", 1, 0, {"b"}), fixed_op("b", 1, 0)};
  expect_config_error(deadlock, "/ops/0", "can never start");
  Trace unknown;
  unknown.ops = {fixed_op("a", 1, 0, {"nope"})};
  expect_config_error(unknown, "/ops/0/deps/0", "nope");
}

}  // namespace
}  // namespace t3sim::system
