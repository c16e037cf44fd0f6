// Kineto import on excerpts of real profiles (tests/models/workload/kineto_data/README.md): the
// runtime-launch linking of re-numbered ids, collectives sized from the kernel, record_param_comms
// or "Input Dims", kinds the library lacks and CUDA-graph kernels kept fixed with a warning (or a
// ConfigError under strict), TF32 GEMMs, and idle time kept or dropped.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "models/workload/kineto_import.h"
#include "sim/errors.h"
#include "sim/strict_json.h"
#include "tests/models/workload/test_support.h"

namespace t3sim::workload {
namespace {

std::filesystem::path data(const std::string& name) {
  return testing::source_dir() / "tests" / "models" / "workload" / "kineto_data" / name;
}

KinetoImport import_file(const std::string& name, const KinetoImportOptions& options = {}) {
  const auto path = data(name);
  return import_kineto_profile(read_json_file(path), path.string(), options);
}

std::vector<const Op*> of_kind(const Trace& t, OpKind kind) {
  std::vector<const Op*> out;
  for (const Op& op : t.ops) {
    if (op.kind == kind) out.push_back(&op);
  }
  return out;
}

const ImportSummary::Category& category(const ImportSummary& s, KernelCategory c) {
  return s.categories.at(static_cast<std::size_t>(c));
}

bool has_warning(const ImportSummary& s, const std::string& part) {
  return std::any_of(s.warnings.begin(), s.warnings.end(), [&](const ImportWarning& w) {
    return w.reason.find(part) != std::string::npos;
  });
}

// Holistic Trace Analysis re-numbers ids: a kernel's External id is its correlation id and names
// no cpu_op, so only the runtime launch links the TF32 cutlass kernels to their aten::mm/addmm.
TEST(KinetoReal, RenumberedIdsLinkThroughTheRuntimeLaunch) {
  const KinetoImport k = import_file("hta_renumbered_ids.json");
  const auto gemms = of_kind(k.trace, OpKind::kGemm);
  ASSERT_EQ(gemms.size(), 3u);
  for (const Op* g : gemms) {
    EXPECT_EQ(g->dtype, Dtype::kTf32) << g->name;  // FP32 tensors on s1688 tensor-op kernels
    EXPECT_NE(g->name.find("s1688gemm"), std::string::npos);
  }
  EXPECT_EQ(k.summary.linked_by_external, 0);
  EXPECT_EQ(k.summary.linked_by_launch, 10);
  EXPECT_EQ(category(k.summary, KernelCategory::kGemm).ops, 3);
  EXPECT_TRUE(k.summary.warnings.empty());
  EXPECT_GT(k.summary.simulated_share(), 40.0);
}

// PyTorch >= 2.1 writes the message size on the NCCL kernel: an all-reduce of 6,563,840 floats
// over a group of 2. Convolution kernels are kept fixed without a warning (not modelled by design).
TEST(KinetoReal, CollectiveSizedFromTheKernel) {
  const KinetoImport k = import_file("hta_nccl_sizes.json");
  const auto ars = of_kind(k.trace, OpKind::kAllReduce);
  ASSERT_EQ(ars.size(), 1u);
  EXPECT_EQ(ars[0]->bytes, 6563840 * 4);  // "In msg nelems" on the kernel
  EXPECT_EQ(ars[0]->dtype, Dtype::kFp32);
  EXPECT_EQ(ars[0]->tp_group, 2);
  EXPECT_EQ(ars[0]->stream, kCommStream);
  EXPECT_GT(category(k.summary, KernelCategory::kConvolution).ops, 0);
  EXPECT_TRUE(k.summary.warnings.empty());
}

// Before PyTorch 2.1 neither the kernel nor record_param_comms carries a size; the nccl:all_reduce
// annotation's "Input Dims" does, and the group is distributedInfo's world size (8).
TEST(KinetoReal, CollectiveSizedFromInputDims) {
  const KinetoImport k = import_file("hta_allreduce_input_dims.json");
  const auto ars = of_kind(k.trace, OpKind::kAllReduce);
  ASSERT_EQ(ars.size(), 1u);
  EXPECT_EQ(ars[0]->bytes, std::int64_t{45310188} * 4);
  EXPECT_EQ(ars[0]->tp_group, 8);
  // The split-K GEMM (cutlass kernel + splitKreduce) merges into one op.
  const auto gemms = of_kind(k.trace, OpKind::kGemm);
  ASSERT_EQ(gemms.size(), 1u);
  EXPECT_DOUBLE_EQ(*gemms[0]->measured_us, 24.0 + 7.0);
}

// A reduce-scatter that NCCL ran as a SendRecv kernel: the kind comes from the
// nccl:_reduce_scatter_base annotation around the launch, not from the kernel name.
TEST(KinetoReal, KindFromTheHostOpNotTheKernelName) {
  const KinetoImport k = import_file("hta_reduce_scatter_sendrecv.json");
  const auto rs = of_kind(k.trace, OpKind::kReduceScatter);
  ASSERT_FALSE(rs.empty());
  // c10d::_reduce_scatter_base_ records [output 8192x384, input 65536x384]: a group of 8 (the
  // world has 16 ranks), the full buffer 65536 x 384 floats.
  EXPECT_EQ(rs[0]->tp_group, 8);
  EXPECT_EQ(rs[0]->bytes, std::int64_t{65536} * 384 * 4);
  const auto communication = std::count_if(k.trace.ops.begin(), k.trace.ops.end(),
                                           [](const Op& op) { return is_collective(op.kind); });
  EXPECT_EQ(category(k.summary, KernelCategory::kCollective).ops, communication);
}

// A CUDA-graph kernel cannot be modelled: lenient keeps it fixed and says so once per reason;
// strict stops at it with its pointer. The all-to-all kernels (NCCL SendRecv kernels under
// nccl:all_to_all) become all_to_all ops of the annotation's input buffer.
TEST(KinetoReal, GraphKeptFixedOrStrictErrorAndAllToAllSimulated) {
  const KinetoImport k = import_file("hta_cuda_graph.json");
  EXPECT_EQ(category(k.summary, KernelCategory::kGraph).ops, 1);
  EXPECT_EQ(category(k.summary, KernelCategory::kCollectiveUnmodelled).ops, 0);
  EXPECT_TRUE(has_warning(k.summary, "CUDA graph"));
  EXPECT_FALSE(has_warning(k.summary, "all-to-all"));
  EXPECT_EQ(k.trace.ops.size(), 5u);
  const auto a2a = of_kind(k.trace, OpKind::kAllToAll);
  ASSERT_EQ(a2a.size(), 2u);
  EXPECT_EQ(a2a[0]->bytes, std::int64_t{689144} * 4);  // "Input Dims" [[689144]] of int
  EXPECT_EQ(a2a[1]->bytes, std::int64_t{32768} * 4);
  EXPECT_EQ(a2a[0]->dtype, Dtype::kInt32);
  EXPECT_EQ(category(k.summary, KernelCategory::kCollective).ops, 2);
  const auto path = data("hta_cuda_graph.json");
  try {
    import_kineto(read_json_file(path), path.string(), {.strict = true});
    FAIL() << "strict import accepted a CUDA-graph kernel";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--strict"), std::string::npos) << e.what();
    EXPECT_EQ(e.pointer().rfind("/traceEvents/", 0), 0u) << e.pointer();
  }
}

// PyTorch 1.9's ResNet-50: batch norms, adds and ReLUs are memory ops of their tensors' bytes
// (the capitalised "Bool"/"Double" arguments are scalars, not read); convolutions stay fixed.
TEST(KinetoReal, ResNetNormsAndElementwiseAreMemoryOps) {
  const KinetoImport k = import_file("kineto_resnet50.json");
  const auto memory = of_kind(k.trace, OpKind::kMemory);
  EXPECT_GE(memory.size(), 8u);
  const std::int64_t x = std::int64_t{32} * 256 * 56 * 56 * 4;  // [32, 256, 56, 56] float
  EXPECT_TRUE(std::any_of(memory.begin(), memory.end(), [&](const Op* op) {
    return op->name.starts_with("aten::cudnn_batch_norm") && op->bytes == x + 4 * 256 * 4 + x;
  }));
  EXPECT_GT(category(k.summary, KernelCategory::kConvolution).ops, 0);
}

// Idle time: kept as each op's idle_us so that gaps + kernels + waits add up to the span; or
// dropped on request, and the summary still reports it.
TEST(KinetoReal, IdleTimeKeptOrDroppedButAlwaysReported) {
  const KinetoImport kept = import_file("kineto_resnet50.json");
  double idle = 0;
  for (const Op& op : kept.trace.ops) idle += op.idle_us;
  EXPECT_GT(idle, 0.0);
  EXPECT_DOUBLE_EQ(idle, kept.summary.idle_us);
  EXPECT_TRUE(kept.summary.idle_kept);
  // One stream: the span is exactly the kernels plus the idle between them.
  EXPECT_NEAR(kept.summary.span_us, kept.summary.gpu_us + kept.summary.idle_us, 1e-6);
  const KinetoImport dropped = import_file("kineto_resnet50.json", {.keep_idle = false});
  for (const Op& op : dropped.trace.ops) EXPECT_EQ(op.idle_us, 0.0);
  EXPECT_FALSE(dropped.summary.idle_kept);
  EXPECT_DOUBLE_EQ(dropped.summary.idle_us, kept.summary.idle_us);
  EXPECT_NE(format_summary(dropped.summary).find("DROPPED"), std::string::npos);
  EXPECT_EQ(parse_trace(to_json(kept.trace), "again"), kept.trace);
}

}  // namespace
}  // namespace t3sim::workload
