#include "models/workload/kineto_schema.h"

#include <gtest/gtest.h>

#include "sim/errors.h"
#include "tests/models/workload/test_support.h"

namespace t3sim::workload {
namespace {

// `dims` is JSON text: braced nlohmann initializers turn {4256} and {} into a number and null.
GemmShape shape(const std::string& op, const std::string& dims) {
  const auto gemm = gemm_from_input_dims(op, nlohmann::json::parse(dims), "k.json",
                                         "/traceEvents/0/args/Input Dims");
  if (!gemm) throw std::runtime_error("empty GEMM");
  return gemm->shape;
}

TEST(KinetoSchema, GemmShapesOfTheMatmulFamily) {
  EXPECT_EQ(shape("aten::mm", "[[8192, 2128], [2128, 4256]]"), (GemmShape{8192, 4256, 2128}));
  EXPECT_EQ(shape("aten::addmm", "[[4256], [8192, 2128], [2128, 4256], [], []]"),
            (GemmShape{8192, 4256, 2128}));
  EXPECT_EQ(shape("aten::linear", "[[1024, 8, 2128], [4256, 2128], [4256]]"),
            (GemmShape{8192, 4256, 2128}));
  EXPECT_EQ(shape("aten::linear", "[[1024, 8, 2128], [4256, 2128], []]"),
            (GemmShape{8192, 4256, 2128}));
  EXPECT_EQ(shape("aten::matmul", "[[1024, 8, 2128], [2128, 4256]]"),
            (GemmShape{8192, 4256, 2128}));
  EXPECT_EQ(shape("aten::matmul", "[[8, 16, 1024, 128], [8, 16, 128, 1024]]"),
            (GemmShape{1024, 1024, 128, 128}));
  EXPECT_EQ(shape("aten::matmul", "[[16, 1024, 128], [1, 128, 1024]]"),
            (GemmShape{1024, 1024, 128, 16}));
  EXPECT_EQ(shape("aten::bmm", "[[128, 1024, 160], [128, 160, 1024]]"),
            (GemmShape{1024, 1024, 160, 128}));
  EXPECT_EQ(
      shape("aten::baddbmm", "[[128, 1024, 1024], [128, 1024, 160], [128, 160, 1024], [], []]"),
      (GemmShape{1024, 1024, 160, 128}));
}

TEST(KinetoSchema, OperandIndexPointsAtA) {
  const auto gemm = gemm_from_input_dims(
      "aten::addmm", nlohmann::json::parse("[[4], [2, 3], [3, 4]]"), "k.json", "/x");
  ASSERT_TRUE(gemm.has_value());
  EXPECT_EQ(gemm->a_input, 1u);
}

TEST(KinetoSchema, MalformedDimsAreConfigErrors) {
  try {
    shape("aten::mm", "[[8192, 2128], [4256, 2128]]");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/traceEvents/0/args/Input Dims");
    EXPECT_NE(std::string(e.what()).find("disagree on K"), std::string::npos) << e.what();
  }
  EXPECT_THROW(shape("aten::mm", "[[8192, 2128]]"), ConfigError);
  EXPECT_THROW(shape("aten::bmm", "[[8192, 2128], [2128, 4]]"), ConfigError);
  EXPECT_THROW(shape("aten::mm", "[[8192, -1], [2128, 4]]"), ConfigError);
  EXPECT_THROW(shape("aten::mm", "\"[[1, 2], [2, 3]]\""), ConfigError);
  EXPECT_FALSE(
      gemm_from_input_dims("aten::mm", nlohmann::json::parse("[[0, 4], [4, 8]]"), "k", "/x")
          .has_value());
}

TEST(KinetoSchema, GemmOpNames) {
  EXPECT_TRUE(is_gemm_op("aten::mm"));
  EXPECT_TRUE(is_gemm_op("aten::linear"));
  EXPECT_FALSE(is_gemm_op("aten::add"));
  EXPECT_FALSE(is_gemm_op("mm"));
}

TEST(KinetoSchema, TorchTypeNames) {
  EXPECT_EQ(dtype_from_torch_name("c10::Half"), Dtype::kFp16);
  EXPECT_EQ(dtype_from_torch_name("Half"), Dtype::kFp16);
  EXPECT_EQ(dtype_from_torch_name("c10::BFloat16"), Dtype::kBf16);
  EXPECT_EQ(dtype_from_torch_name("float"), Dtype::kFp32);
  EXPECT_EQ(dtype_from_torch_name("Float"), Dtype::kFp32);
  EXPECT_EQ(dtype_from_torch_name("c10::Float8_e4m3fn"), Dtype::kFp8);
  EXPECT_EQ(dtype_from_torch_name("long int"), Dtype::kInt64);
  EXPECT_FALSE(dtype_from_torch_name("ScalarList").has_value());
  EXPECT_FALSE(dtype_from_torch_name("").has_value());
}

TEST(KinetoSchema, NcclKernelNames) {
  EXPECT_EQ(collective_from_nccl_kernel(
                "ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"),
            OpKind::kAllReduce);
  EXPECT_EQ(collective_from_nccl_kernel("ncclKernel_ReduceScatter_RING_LL_Sum_half(ncclWorkElem)"),
            OpKind::kReduceScatter);
  EXPECT_EQ(collective_from_nccl_kernel("ncclDevKernel_AllGather_RING_LL(ncclDevComm*)"),
            OpKind::kAllGather);
  EXPECT_FALSE(collective_from_nccl_kernel("ncclDevKernel_SendRecv(ncclDevComm*)").has_value());
  EXPECT_FALSE(collective_from_nccl_kernel("ncclDevKernel_Broadcast_RING_LL").has_value());
  EXPECT_FALSE(is_nccl_kernel("sm90_xmma_gemm_f16f16"));
}

}  // namespace
}  // namespace t3sim::workload
