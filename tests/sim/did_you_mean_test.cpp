#include "sim/did_you_mean.h"

#include <gtest/gtest.h>

namespace t3sim {
namespace {

TEST(DidYouMean, EditDistanceCountsInsertDeleteSubstitute) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("channels", "chanels"), 1u);
  EXPECT_EQ(edit_distance("flaw", "lawn"), 2u);
}

TEST(DidYouMean, NearestIsWithinTheLimitAndTheFirstOfEqualCandidates) {
  // limit = max(2, |word| / 3): "abcdefghi" allows 3 edits, "ab" allows 2.
  EXPECT_EQ(nearest_name("abcdefghi", {"abcdefxyz"}), "abcdefxyz");
  EXPECT_EQ(nearest_name("abcdefghi", {"abcdewxyz"}), "");
  EXPECT_EQ(nearest_name("ab", {"xy"}), "xy");
  EXPECT_EQ(nearest_name("bat", {"cat", "hat"}), "cat");
  EXPECT_EQ(nearest_name("bat", {"hat", "cat"}), "hat");
}

TEST(DidYouMean, MessageAndJoin) {
  EXPECT_EQ(did_you_mean("ring", {"rings", "tree"}), " (did you mean 'rings'?)");
  EXPECT_EQ(did_you_mean("qqqqqqqq", {"rings", "tree"}), "");
  EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(join({}, ", "), "");
}

}  // namespace
}  // namespace t3sim
