#include "sim/json_pointer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace t3sim {
namespace {

TEST(JsonPointer, TokensEscapeTildeThenSlash) {
  EXPECT_EQ(pointer_token(""), "");
  EXPECT_EQ(pointer_token("plain key"), "plain key");
  EXPECT_EQ(pointer_token("~1"), "~01");  // a literal "~1" must not read back as '/'
  EXPECT_EQ(pointer_token("a/b~c"), "a~1b~0c");
}

TEST(JsonPointer, TokensRoundTripThroughNlohmann) {
  const nlohmann::json j = {{"a/b~c", {{"x~/", 3}}}};
  const std::string p = "/" + pointer_token("a/b~c") + "/" + pointer_token("x~/");
  EXPECT_EQ(j.at(nlohmann::json::json_pointer(p)), 3);
}

}  // namespace
}  // namespace t3sim
