#include "models/workload/kineto_import.h"
#include "tests/models/workload/kineto_test_events.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/errors.h"
#include "sim/strict_json.h"
#include "tests/models/workload/test_support.h"

namespace t3sim::workload {
namespace {

using testing::samples_dir;

Trace import_sample(const KinetoImportOptions& options = {}) {
  const auto path = samples_dir() / "kineto_tp_sublayer.json";
  return import_kineto(read_json_file(path), path.string(), options);
}

TEST(KinetoImport, SampleBecomesGemmThenAllReduceThenFixed) {
  const Trace trace = import_sample();
  EXPECT_EQ(trace.metadata.source, "kineto");
  ASSERT_EQ(trace.ops.size(), 3u);
  const Op& gemm = trace.ops[0];
  EXPECT_EQ(gemm.id, "s7.0.gemm");
  EXPECT_EQ(gemm.kind, OpKind::kGemm);
  EXPECT_EQ(gemm.shape, (GemmShape{8192, 4256, 2128}));  // T-NLG FC-2 fwd at TP 8, T = 8192
  EXPECT_EQ(gemm.dtype, Dtype::kFp16);
  EXPECT_EQ(gemm.stream, kComputeStream);
  EXPECT_DOUBLE_EQ(*gemm.measured_us, 262.4);
  EXPECT_TRUE(gemm.deps.empty());
  const Op& ar = trace.ops[1];
  EXPECT_EQ(ar.id, "s21.0.all_reduce");
  EXPECT_EQ(ar.kind, OpKind::kAllReduce);
  EXPECT_EQ(ar.bytes, 8192 * 4256 * 2);
  EXPECT_EQ(ar.tp_group, 8);
  EXPECT_EQ(ar.stream, kCommStream);
  EXPECT_EQ(ar.deps, std::vector<std::string>{"s7.0.gemm"});
  const Op& add = trace.ops[2];  // the residual add: two [1024, 8, 4256] fp16 read, one written
  EXPECT_EQ(add.kind, OpKind::kMemory);
  EXPECT_EQ(add.bytes, std::int64_t{3} * 1024 * 8 * 4256 * 2);
  EXPECT_DOUBLE_EQ(*add.measured_us, 71.8);
  EXPECT_EQ(add.deps, (std::vector<std::string>{"s7.0.gemm", "s21.0.all_reduce"}));
  EXPECT_EQ(parse_trace(to_json(trace), "again"), trace);
}

TEST(KinetoImport, CrossStreamInferenceCanBeTurnedOff) {
  const Trace trace = import_sample({.infer_cross_stream_deps = false});
  EXPECT_TRUE(trace.ops[1].deps.empty());
  EXPECT_EQ(trace.ops[2].deps, std::vector<std::string>{"s7.0.gemm"});
}

nlohmann::json kernel(const std::string& name, double ts, double dur, int stream, int external_id,
                      nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json args = {{"External id", external_id}, {"stream", stream}, {"device", 0}};
  args.update(extra);
  return {{"ph", "X"},     {"cat", "kernel"}, {"name", name}, {"pid", 0},
          {"tid", stream}, {"ts", ts},        {"dur", dur},   {"args", args}};
}

const nlohmann::json kBmmArgs = {{"Input Dims", {{96, 2048, 128}, {96, 128, 2048}}},
                                 {"Input type", {"c10::BFloat16", "c10::BFloat16"}}};

// The Trace Event Format's array form (PyTorch 1.8's profiler writes a bare array of events)
// imports as its events.
TEST(KinetoImport, TopLevelEventArrayImports) {
  const nlohmann::json events = {testing::kineto_cpu_op("aten::bmm", 5, kBmmArgs),
                                 kernel("gemm_splitk", 10.0, 30.0, 7, 5)};
  const Trace t = import_kineto(events, "array.json");
  ASSERT_EQ(t.ops.size(), 1u);
  EXPECT_EQ(t.ops[0].kind, OpKind::kGemm);
}

// A gzip profile is decompressed into a temporary file and streamed: the same import as the plain
// file, and the temporary file is gone afterwards.
TEST(KinetoImport, GzipProfileIsStreamedLikeThePlainFile) {
  testing::ScratchDir dir("kineto-gz");
  const auto plain = dir.path() / "p.json";
  {
    std::ofstream out(plain);
    out << nlohmann::json{{"traceEvents",
                           {testing::kineto_cpu_op("aten::bmm", 5, kBmmArgs),
                            kernel("gemm", 10.0, 30.0, 7, 5)}}}
               .dump();
  }
  ASSERT_EQ(std::system(("gzip -k " + plain.string()).c_str()), 0);
  const KinetoImport a = import_kineto_file(plain);
  const KinetoImport b = import_kineto_file(plain.string() + ".gz");
  EXPECT_EQ(a.trace.ops, b.trace.ops);
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
    EXPECT_EQ(e.path().filename().string().rfind("t3sim-kineto-" + std::to_string(::getpid()), 0),
              std::string::npos);
  }
}

TEST(KinetoImport, SplitKernelsOfOneGemmMerge) {
  const nlohmann::json trace = {
      {"traceEvents",
       {testing::kineto_cpu_op("aten::bmm", 5, kBmmArgs), kernel("gemm_splitk", 10.0, 30.0, 7, 5),
        kernel("splitKreduce_kernel", 40.0, 2.5, 7, 5)}}};
  const Trace t = import_kineto(trace, "split.json");
  ASSERT_EQ(t.ops.size(), 1u);
  EXPECT_EQ(t.ops[0].shape, (GemmShape{2048, 2048, 128, 96}));
  EXPECT_EQ(t.ops[0].dtype, Dtype::kBf16);
  EXPECT_DOUBLE_EQ(*t.ops[0].measured_us, 32.5);
}

TEST(KinetoImport, CollectiveSizeFromRecordParamComms) {
  const nlohmann::json comms = {{"Collective name", "_reduce_scatter_base"},
                                {"In msg nelems", 4096},
                                {"Out msg nelems", 512},
                                {"Group size", 8},
                                {"dtype", "BFloat16"}};
  const nlohmann::json trace = {
      {"traceEvents",
       {testing::kineto_cpu_op("record_param_comms", 9, comms),
        kernel("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*)", 1.0, 5.0, 20, 9),
        kernel("ncclDevKernel_SendRecv(ncclDevComm*)", 7.0, 1.0, 20, 10)}}};
  const Trace t = import_kineto(trace, "rs.json");
  ASSERT_EQ(t.ops.size(), 2u);
  EXPECT_EQ(t.ops[0].kind, OpKind::kReduceScatter);
  EXPECT_EQ(t.ops[0].bytes, 4096 * 2);  // the full buffer before the scatter
  EXPECT_EQ(t.ops[0].stream, kCommStream);
  EXPECT_EQ(t.ops[1].kind, OpKind::kFixed);  // send/recv is not a TP collective
}

// Every collective NCCL runs becomes its kind (a barrier an all-reduce of its one element); a
// send/recv kernel, whose peer the profile does not record, stays fixed and is counted.
TEST(KinetoImport, RootedAllToAllAndBarrierCollectivesAreSimulated) {
  const auto comms = [](const std::string& name, int elements) {
    return nlohmann::json{{"Collective name", name},
                          {"In msg nelems", elements},
                          {"Out msg nelems", elements},
                          {"Group size", 8},
                          {"dtype", "Float"}};
  };
  const nlohmann::json trace = {
      {"traceEvents",
       {testing::kineto_cpu_op("record_param_comms", 9, comms("broadcast", 1024)),
        kernel("ncclDevKernel_Broadcast_RING_LL(ncclDevComm*)", 1.0, 5.0, 20, 9),
        testing::kineto_cpu_op("record_param_comms", 10, comms("all_to_all", 4096)),
        kernel("ncclDevKernel_SendRecv(ncclDevComm*)", 7.0, 3.0, 20, 10),
        testing::kineto_cpu_op("record_param_comms", 11, comms("barrier", 1)),
        kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)", 11.0, 2.0, 20, 11),
        testing::kineto_cpu_op("record_param_comms", 12, comms("reduce", 64)),
        kernel("ncclDevKernel_Reduce_Sum_f32_RING_LL(ncclDevComm*)", 14.0, 2.0, 20, 12),
        kernel("ncclDevKernel_SendRecv(ncclDevComm*)", 17.0, 4.0, 20, 13)}}};
  const KinetoImport k = import_kineto_profile(trace, "c.json", {});
  const std::vector<OpKind> want = {OpKind::kBroadcast, OpKind::kAllToAll, OpKind::kAllReduce,
                                    OpKind::kReduce, OpKind::kFixed};
  ASSERT_EQ(k.trace.ops.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(k.trace.ops[i].kind, want[i]) << i;
  EXPECT_EQ(k.trace.ops[1].bytes, 4096 * 4);
  EXPECT_EQ(k.trace.ops[2].bytes, 4);
  EXPECT_EQ(k.trace.ops[1].tp_group, 8);
  const std::string summary = format_summary(k.summary);
  EXPECT_NE(summary.find("communication not simulated: 1 ops, 4.0 us"), std::string::npos)
      << summary;
}

// Older PyTorch: no nelems anywhere, but c10d::_allgather_base_ records [output, input] dims, so
// the full buffer and the group (their ratio) are known, whatever the world size.
TEST(KinetoImport, AllGatherSizedFromTheBaseOpDims) {
  const nlohmann::json dims = {{"Input Dims", {{64, 16}, {16}}},
                               {"Input type", {"float", "float"}}};
  const nlohmann::json trace = {
      {"distributedInfo", {{"world_size", 128}}},
      {"traceEvents",
       {testing::kineto_cpu_op("c10d::_allgather_base_", 3, dims),
        kernel("ncclDevKernel_AllGather_RING_LL(ncclDevComm*)", 1.0, 5.0, 20, 3)}}};
  const Trace t = import_kineto(trace, "ag.json");
  ASSERT_EQ(t.ops.size(), 1u);
  EXPECT_EQ(t.ops[0].kind, OpKind::kAllGather);
  EXPECT_EQ(t.ops[0].bytes, 64 * 16 * 4);
  EXPECT_EQ(t.ops[0].tp_group, 64);
}

TEST(KinetoImport, MissingMetadataIsAConfigErrorWithThePointerWhenStrict) {
  const nlohmann::json no_size = {
      {"traceEvents",
       {{{"ph", "M"}, {"name", "process_name"}},
        kernel("ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevComm*)", 1.0, 5.0, 20, 9)}}};
  try {
    import_kineto(no_size, "n.json", {.strict = true});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/traceEvents/1/args");
    EXPECT_NE(std::string(e.what()).find("In msg nelems"), std::string::npos) << e.what();
  }
  const nlohmann::json no_dims = {{"traceEvents",
                                   {testing::kineto_cpu_op("aten::mm", 5, nlohmann::json::object()),
                                    kernel("gemm", 1.0, 2.0, 7, 5)}}};
  EXPECT_THROW(import_kineto(no_dims, "d.json", {.strict = true}), ConfigError);
  EXPECT_THROW(import_kineto({{"traceEvents", nlohmann::json::array()}}, "e.json"), ConfigError);
  EXPECT_THROW(import_kineto({{"events", nlohmann::json::array()}}, "e.json"), ConfigError);
}

// Lenient (the default): the same ops stay fixed, each reason is one grouped warning naming the
// first op's pointer, and the rest of the file imports.
TEST(KinetoImport, UnmodellableOpsStayFixedWithGroupedWarnings) {
  const nlohmann::json trace = {
      {"traceEvents",
       {testing::kineto_cpu_op("aten::mm", 5, nlohmann::json::object()),
        kernel("gemm_a", 1.0, 2.0, 7, 5), testing::kineto_cpu_op("aten::mm", 6, kBmmArgs),
        kernel("gemm_b", 4.0, 2.0, 7, 6),
        kernel("ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevComm*)", 7.0, 5.0, 20, 9),
        kernel("ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevComm*)", 13.0, 5.0, 20, 10),
        testing::kineto_cpu_op("aten::bmm", 11, kBmmArgs), kernel("gemm_c", 20.0, 3.0, 7, 11)}}};
  const KinetoImport k = import_kineto_profile(trace, "l.json");
  ASSERT_EQ(k.trace.ops.size(), 5u);
  EXPECT_EQ(k.trace.ops[0].kind, OpKind::kFixed);  // aten::mm without Input Dims
  EXPECT_EQ(k.trace.ops[1].kind, OpKind::kFixed);  // aten::mm with a batched operand
  EXPECT_EQ(k.trace.ops[4].kind, OpKind::kGemm);   // the bmm still imports
  ASSERT_EQ(k.summary.warnings.size(), 2u);
  EXPECT_EQ(k.summary.warnings[0].count, 2);
  EXPECT_EQ(k.summary.warnings[0].pointer, "/traceEvents/0/args");
  EXPECT_EQ(k.summary.warnings[1].count, 2);
  EXPECT_NE(k.summary.warnings[1].reason.find("message size"), std::string::npos);
  EXPECT_NEAR(k.summary.simulated_share(), 100.0 * 3.0 / 17.0, 1e-9);
  const auto lines = format_warnings(k.summary, "l.json");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].rfind("warning: l.json: 2 kernels", 0), 0u) << lines[1];
}

TEST(KinetoImport, UnlinkedKernelsAreFixedOps) {
  const nlohmann::json trace = {
      {"traceEvents", {kernel("void elementwise_kernel", 3.0, 4.0, 7, 77)}}};
  const Trace t = import_kineto(trace, "f.json");
  ASSERT_EQ(t.ops.size(), 1u);
  EXPECT_EQ(t.ops[0].kind, OpKind::kFixed);
  EXPECT_EQ(t.ops[0].stream, kComputeStream);
}

// A GPU kernel without "ph" is not a complete event: it is not imported, but counted and warned
// about (its GPU time no longer vanishes in silence), and --strict refuses it.
TEST(KinetoImport, KernelWithoutPhIsCountedAndWarned) {
  nlohmann::json lost = kernel("void elementwise_kernel", 10.0, 39.0, 7, 78);
  lost.erase("ph");
  const nlohmann::json trace = {
      {"traceEvents", {kernel("void elementwise_kernel", 3.0, 4.0, 7, 77), lost}}};
  const KinetoImport k = import_kineto_profile(trace, "p.json");
  EXPECT_EQ(k.trace.ops.size(), 1u);
  EXPECT_EQ(k.summary.without_ph, 1);
  EXPECT_DOUBLE_EQ(k.summary.without_ph_us, 39.0);
  const auto lines = format_warnings(k.summary, "p.json");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("warning: p.json: 1 GPU events without \"ph\" (39.0 us", 0), 0u)
      << lines[0];
  EXPECT_NE(lines[0].find("/traceEvents/1"), std::string::npos) << lines[0];
  try {
    import_kineto(trace, "p.json", {.strict = true});
    FAIL() << "strict import accepted a kernel without ph";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/traceEvents/1");
  }
}

}  // namespace
}  // namespace t3sim::workload
