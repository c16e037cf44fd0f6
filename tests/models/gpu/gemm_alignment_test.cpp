// Tests of the kernel class by operand row alignment (models/gpu/gemm_alignment.h): the alignment
// of K and N rows, the class a shape gets, the binding of `unaligned_kernels`, and a GEMM on the
// inline rig (gemm_rig.h) whose unaligned twin takes the class's longer compute.
#include <gtest/gtest.h>

#include "models/gpu/gemm_alignment.h"
#include "sim/config.h"
#include "tests/models/gpu/gemm_rig.h"

namespace t3sim::gpu {
namespace {

using namespace t3sim::literals;  // NOLINT(google-build-using-namespace): test literals

TEST(GemmAlignment, RowsAlignToTheLowestSetBitOfTheirBytesCappedAtSixteen) {
  EXPECT_EQ(row_alignment(GemmShape{8192, 4256, 2128}, 2), 16u);
  EXPECT_EQ(row_alignment(GemmShape{8192, 4256, 532}, 2), 8u);   // 1064 B
  EXPECT_EQ(row_alignment(GemmShape{8192, 4256, 266}, 2), 4u);   // 532 B
  EXPECT_EQ(row_alignment(GemmShape{8192, 4256, 133}, 2), 2u);   // 266 B
  EXPECT_EQ(row_alignment(GemmShape{8192, 4255, 2128}, 2), 2u);  // N rows: 8510 B
  EXPECT_EQ(row_alignment(GemmShape{8192, 4255, 2128}, 4), 4u);
  EXPECT_EQ(row_alignment(GemmShape{64, 33, 64}, 1), 1u);
}

TEST(GemmAlignment, AShapeGetsTheClassOfItsAlignmentOrTheNearestBelow) {
  const std::vector<UnalignedKernel> classes = {{Bytes(8), 0.3}, {Bytes(2), 0.1}};
  EXPECT_DOUBLE_EQ(unaligned_matrix_share(classes, GemmShape{64, 64, 64}, 2), 1.0);
  EXPECT_DOUBLE_EQ(unaligned_matrix_share(classes, GemmShape{64, 64, 532}, 2), 0.3);
  EXPECT_DOUBLE_EQ(unaligned_matrix_share(classes, GemmShape{64, 64, 266}, 2), 0.1);  // 4 B: 2's
  EXPECT_DOUBLE_EQ(unaligned_matrix_share(classes, GemmShape{64, 64, 133}, 2), 0.1);
  EXPECT_DOUBLE_EQ(unaligned_matrix_share({}, GemmShape{64, 64, 133}, 2), 1.0);
}

std::vector<UnalignedKernel> bind(const nlohmann::json& j) {
  const ConfigDoc doc = config_from_json(j, "<test>");
  return bind_unaligned_kernels(ConfigNode::root(doc));
}

TEST(GemmAlignment, BindingSortsTheClassesAndRefusesBadKeysAndShares) {
  const auto c = bind({{"2", 0.3}, {"8", 0.25}, {"4", 0.35}});
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].alignment.count(), 8u);
  EXPECT_EQ(c[2].alignment.count(), 2u);
  EXPECT_DOUBLE_EQ(c[1].matrix_share, 0.35);
  EXPECT_THROW(bind({{"16", 0.5}}), ConfigError);  // aligned: no class
  EXPECT_THROW(bind({{"3", 0.5}}), ConfigError);   // not a power of two
  EXPECT_THROW(bind({{"8 B", 0.5}}), ConfigError);
  EXPECT_THROW(bind({{"8", 0.0}}), ConfigError);
  EXPECT_THROW(bind({{"8", 1.5}}), ConfigError);
}

TEST(GemmAlignment, AnUnalignedGemmComputesAtItsClassShare) {
  // Compute-bound on the inline GPU: K = 1024 (aligned) against K = 1020 (8-byte rows) with a
  // class at half the matrix rate: the unaligned GEMM takes about twice as long.
  GpuSpec spec = testing::small_gpu();
  const auto time = [&spec](uint64_t k) {
    testing::Rig rig(spec, 10_ns, 64, GemmShape{256, 512, k});
    return rig.run(4);
  };
  const Duration aligned_k = time(1024);
  const Duration unaligned_plain = time(1020);
  spec.unaligned_kernels = {{Bytes(8), 0.5}};
  const Duration aligned_with_classes = time(1024);
  const Duration unaligned = time(1020);
  EXPECT_EQ(aligned_with_classes, aligned_k);
  EXPECT_NEAR(unaligned.to_us() / unaligned_plain.to_us(), 2.0, 0.1);
}

}  // namespace
}  // namespace t3sim::gpu
