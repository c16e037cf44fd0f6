// Memory-bound ops of a Kineto import (kineto_memory.h, kineto_copies.h): each family's byte rule
// over "Input Dims"/"Input type", device copies and sets as memory ops of their "bytes", host
// copies fixed under their own reason, and one op's bytes split over the kernels it launched.
#include "models/workload/kineto_memory.h"

#include <gtest/gtest.h>

#include "models/workload/kineto_copies.h"
#include "models/workload/kineto_import.h"
#include "sim/errors.h"
#include "tests/models/workload/kineto_test_events.h"

namespace t3sim::workload {
namespace {

nlohmann::json copy(const std::string& cat, const std::string& name, double ts,
                    nlohmann::json args) {
  args["stream"] = 7;
  return {{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 0},
          {"tid", 7},  {"ts", ts},   {"dur", 5.0},   {"args", args}};
}

const nlohmann::json kNone = nlohmann::json::array();  // the dims of a scalar or 0-dim tensor

nlohmann::json shapes(nlohmann::json dims, nlohmann::json types) {
  return {{"Input Dims", std::move(dims)}, {"Input type", std::move(types)}};
}

std::int64_t bytes_of(const std::string& op, const nlohmann::json& args) {
  const MemoryFamily* family = memory_family(op);
  EXPECT_NE(family, nullptr) << op;
  return family == nullptr ? -1 : memory_op_bytes(*family, args, "t.json", "/traceEvents/0/args");
}

const ImportSummary::Category& reason(const ImportSummary& s, FixedReason r) {
  return s.fixed_reasons[static_cast<std::size_t>(r)];
}

TEST(KinetoMemory, FamiliesAreFoundByOpNameInPlaceOrNot) {
  EXPECT_EQ(memory_family("aten::add")->name, "element-wise");
  EXPECT_EQ(memory_family("aten::add_")->name, "element-wise");
  EXPECT_EQ(memory_family("aten::native_layer_norm")->name, "normalization / softmax");
  EXPECT_EQ(memory_family("aten::copy_")->name, "copy / cast");
  EXPECT_EQ(memory_family("aten::embedding_bag")->name, "embedding");
  EXPECT_EQ(memory_family("aten::cat"), nullptr);  // not in the table: stays fixed
  EXPECT_EQ(memory_family("aten::mm"), nullptr);
  EXPECT_EQ(memory_family("add"), nullptr);  // only aten ops
}

// Element-wise: every tensor input read, the broadcast shape written in the widest type.
TEST(KinetoMemory, ElementwiseWritesTheBroadcastShape) {
  // [8, 1, 4] + [3, 1] (fp16) -> [8, 3, 4]: 64 + 6 bytes read, 96 elements x 2 bytes written.
  EXPECT_EQ(bytes_of("aten::add",
                     shapes({{8, 1, 4}, {3, 1}, kNone}, {"c10::Half", "c10::Half", "Scalar"})),
            64 + 6 + 192);
  // fp32 * fp16 -> fp32; a 0-dim tensor reads one element.
  EXPECT_EQ(bytes_of("aten::mul_", shapes({{4, 4}, kNone}, {"float", "c10::Half"})), 64 + 2 + 64);
  // Comparisons write bool.
  EXPECT_EQ(bytes_of("aten::eq", shapes({{10}, {10}}, {"long int", "long int"})), 80 + 80 + 10);
}

TEST(KinetoMemory, CopyFillRowwiseReductionAndEmbeddingRules) {
  // copy_(dst bf16, src fp32): src read, dst written.
  EXPECT_EQ(
      bytes_of("aten::copy_", shapes({{100}, {100}, kNone}, {"c10::BFloat16", "float", "Scalar"})),
      200 + 400);
  EXPECT_EQ(bytes_of("aten::clone", shapes({{100}}, {"float"})), 800);  // read + written
  EXPECT_EQ(bytes_of("aten::zero_", shapes({{100}}, {"float"})), 400);  // written only
  // layer norm of [16, 64] fp16 with weight and bias [64]: all read, one [16, 64] written.
  EXPECT_EQ(bytes_of("aten::native_layer_norm",
                     shapes({{16, 64}, kNone, {64}, {64}, kNone},
                            {"c10::Half", "ScalarList", "c10::Half", "c10::Half", "Scalar"})),
            2048 + 128 + 128 + 2048);
  EXPECT_EQ(
      bytes_of("aten::sum", shapes({{32, 8}, kNone, kNone}, {"float", "ScalarList", "Scalar"})),
      1024);
  // embedding_bag(weight [1000, 16] fp32, indices [40] int64, offsets [8] int64): indices and
  // offsets read, 40 rows of 64 bytes read, 8 bags written.
  EXPECT_EQ(bytes_of("aten::embedding_bag",
                     shapes({{1000, 16}, {40}, {8}}, {"float", "long int", "long int"})),
            320 + 64 + 40 * 64 + 8 * 64);
}

TEST(KinetoMemory, UnusableShapesAreConfigErrorsNamingTheMember) {
  try {
    bytes_of("aten::add", shapes({{8, -1}}, {"float"}));
    FAIL() << "negative size accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/traceEvents/0/args/Input Dims/0/1");
  }
  EXPECT_THROW(bytes_of("aten::add", shapes({kNone}, {"Scalar"})), ConfigError);  // no tensor
}

TEST(KinetoCopies, DirectionAndBytesOfCopiesAndSets) {
  const nlohmann::json args = {{"bytes", 4096}};
  EXPECT_EQ(copy_memory_bytes(kineto_copy("Memset (Device)", "gpu_memset", &args)), 4096);
  EXPECT_EQ(copy_memory_bytes(kineto_copy("Memcpy DtoD (Device -> Device)", "gpu_memcpy", &args)),
            8192);  // read and written
  const KinetoCopy htod = kineto_copy("Memcpy HtoD (Pinned -> Device)", "gpu_memcpy", &args);
  EXPECT_EQ(htod.kind, CopyKind::kHost);
  EXPECT_EQ(copy_memory_bytes(htod), std::nullopt);
  EXPECT_EQ(kineto_copy("Memcpy PtoP (Device -> Device)", "gpu_memcpy", &args).kind,
            CopyKind::kPeer);
  const nlohmann::json rocm = {{"kind", "HtoD"}};  // ROCm names the direction in args
  EXPECT_EQ(kineto_copy("Memcpy", "gpu_memcpy", &rocm).kind, CopyKind::kHost);
  EXPECT_EQ(copy_memory_bytes(kineto_copy("Memset (Device)", "gpu_memset", nullptr)),
            std::nullopt);  // no byte count
}

// Through the importer: a device memset and copy are memory ops, a host copy fixed with its
// reason; an op's two kernels share its bytes; unknown and shapeless ops keep their reasons.
TEST(KinetoMemory, ImportMakesMemoryOpsAndSplitsAnOpsBytesOverItsKernels) {
  const nlohmann::json ln = shapes({{16, 64}, {64}, {64}}, {"c10::Half", "c10::Half", "c10::Half"});
  const nlohmann::json events = {
      {"traceEvents",
       {copy("gpu_memset", "Memset (Device)", 0, {{"bytes", 1000}}),
        copy("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 10, {{"bytes", 1000}}),
        copy("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 20, {{"bytes", 1000}}),
        testing::kineto_cpu_op("aten::native_layer_norm", 1, ln),
        testing::kineto_kernel("vectorized_layer_norm_kernel", 30, 4, 1),
        testing::kineto_kernel("layer_norm_finish_kernel", 40, 6, 1),
        testing::kineto_cpu_op("aten::cat", 2, shapes({{4}}, {"float"})),
        testing::kineto_kernel("cat_kernel", 50, 7, 2),
        testing::kineto_cpu_op("aten::relu", 3, nlohmann::json::object()),
        testing::kineto_kernel("relu_kernel", 60, 8, 3)}}};
  const KinetoImport k = import_kineto_profile(events, "mem.json");
  const auto& ops = k.trace.ops;
  ASSERT_EQ(ops.size(), 7u);
  EXPECT_EQ(ops[0].kind, OpKind::kMemory);
  EXPECT_EQ(ops[0].bytes, 1000);
  EXPECT_EQ(ops[1].kind, OpKind::kMemory);
  EXPECT_EQ(ops[1].bytes, 2000);
  EXPECT_EQ(ops[2].kind, OpKind::kFixed);
  // 2048 + 128 + 128 read, 2048 written = 4352, evenly over the two kernels.
  EXPECT_EQ(ops[3].kind, OpKind::kMemory);
  EXPECT_EQ(ops[3].bytes, 2176);
  EXPECT_EQ(ops[4].bytes, 2176);
  EXPECT_DOUBLE_EQ(*ops[4].measured_us, 6.0);  // kept for comparison, not simulated from
  EXPECT_EQ(ops[5].kind, OpKind::kFixed);
  EXPECT_EQ(ops[6].kind, OpKind::kFixed);
  const ImportSummary& s = k.summary;
  EXPECT_EQ(s.categories[static_cast<std::size_t>(KernelCategory::kMemory)].ops, 4);
  EXPECT_EQ(reason(s, FixedReason::kHostCopy).ops, 1);
  EXPECT_EQ(reason(s, FixedReason::kOtherKernel).ops, 1);  // aten::cat: not in the table
  EXPECT_EQ(reason(s, FixedReason::kNoShapes).ops, 1);     // aten::relu without Input Dims
  EXPECT_DOUBLE_EQ(s.simulated_share(), 100.0 * 20.0 / 40.0);
}

TEST(KinetoMemory, UnusableShapesWarnOrFailWhenStrict) {
  const nlohmann::json events = {
      {"traceEvents",
       {testing::kineto_cpu_op("aten::add", 1, shapes({{4, -2}, {4}}, {"float", "float"})),
        testing::kineto_kernel("add_kernel", 0, 3, 1)}}};
  const KinetoImport k = import_kineto_profile(events, "bad.json");
  EXPECT_EQ(k.trace.ops[0].kind, OpKind::kFixed);
  EXPECT_EQ(reason(k.summary, FixedReason::kUnusableMemory).ops, 1);
  ASSERT_EQ(k.summary.warnings.size(), 1u);
  EXPECT_EQ(k.summary.warnings[0].pointer, "/traceEvents/0/args/Input Dims/0/1");
  EXPECT_THROW(import_kineto_profile(events, "bad.json", {.strict = true}), ConfigError);
}

}  // namespace
}  // namespace t3sim::workload
