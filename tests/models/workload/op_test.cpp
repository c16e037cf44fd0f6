#include "models/workload/op.h"

#include <gtest/gtest.h>

namespace t3sim::workload {
namespace {

TEST(OpKind, NamesRoundTrip) {
  ASSERT_EQ(op_kind_names().size(), 11u);
  for (const auto& name : op_kind_names()) {
    const auto kind = parse_op_kind(name);
    ASSERT_TRUE(kind.has_value()) << name;
    EXPECT_EQ(to_string(*kind), name);
  }
  EXPECT_FALSE(parse_op_kind("allreduce").has_value());
}

TEST(OpKind, CommunicationKindsAreCollectivesAndPointToPoint) {
  for (OpKind k :
       {OpKind::kAllReduce, OpKind::kReduceScatter, OpKind::kAllGather, OpKind::kBroadcast,
        OpKind::kReduce, OpKind::kAllToAll, OpKind::kSend, OpKind::kRecv}) {
    EXPECT_TRUE(is_collective(k)) << to_string(k);
  }
  EXPECT_FALSE(is_collective(OpKind::kGemm));
  EXPECT_FALSE(is_collective(OpKind::kMemory));
  EXPECT_FALSE(is_collective(OpKind::kFixed));
  EXPECT_TRUE(is_point_to_point(OpKind::kSend) && is_point_to_point(OpKind::kRecv));
  EXPECT_FALSE(is_point_to_point(OpKind::kAllToAll));
  EXPECT_TRUE(is_rooted(OpKind::kBroadcast) && is_rooted(OpKind::kReduce));
  EXPECT_FALSE(is_rooted(OpKind::kAllReduce));
}

}  // namespace
}  // namespace t3sim::workload
