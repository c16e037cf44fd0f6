#include "models/workload/op.h"

#include <gtest/gtest.h>

namespace t3sim::workload {
namespace {

TEST(OpKind, NamesRoundTrip) {
  ASSERT_EQ(op_kind_names().size(), 6u);
  for (const auto& name : op_kind_names()) {
    const auto kind = parse_op_kind(name);
    ASSERT_TRUE(kind.has_value()) << name;
    EXPECT_EQ(to_string(*kind), name);
  }
  EXPECT_FALSE(parse_op_kind("allreduce").has_value());
}

TEST(OpKind, CollectivesAreTheThreeRingCollectives) {
  EXPECT_TRUE(is_collective(OpKind::kAllReduce));
  EXPECT_TRUE(is_collective(OpKind::kReduceScatter));
  EXPECT_TRUE(is_collective(OpKind::kAllGather));
  EXPECT_FALSE(is_collective(OpKind::kGemm));
  EXPECT_FALSE(is_collective(OpKind::kMemory));
  EXPECT_FALSE(is_collective(OpKind::kFixed));
}

}  // namespace
}  // namespace t3sim::workload
