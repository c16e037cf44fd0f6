#include "models/workload/dtype.h"

#include <gtest/gtest.h>

namespace t3sim::workload {
namespace {

TEST(Dtype, NamesRoundTripAndWidths) {
  for (const auto& name : dtype_names()) {
    const auto dtype = parse_dtype(name);
    ASSERT_TRUE(dtype.has_value()) << name;
    EXPECT_EQ(to_string(*dtype), name);
  }
  EXPECT_EQ(bytes_per_element(Dtype::kFp16), 2);
  EXPECT_EQ(bytes_per_element(Dtype::kBf16), 2);
  EXPECT_EQ(bytes_per_element(Dtype::kFp32), 4);
  EXPECT_EQ(bytes_per_element(Dtype::kFp8), 1);
  EXPECT_EQ(bytes_per_element(Dtype::kInt64), 8);
  EXPECT_FALSE(parse_dtype("half").has_value());
}

}  // namespace
}  // namespace t3sim::workload
