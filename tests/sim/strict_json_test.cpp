#include "sim/strict_json.h"

#include <gtest/gtest.h>

#include "sim/errors.h"

namespace t3sim {
namespace {

TEST(StrictJson, EditDistanceAndNearest) {
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("hidden", "hidden"), 0u);
  EXPECT_EQ(nearest_name("hiden", {"hidden", "heads", "ffn"}), "hidden");
  EXPECT_EQ(nearest_name("zzzzzz", {"hidden", "heads"}), "");
  EXPECT_EQ(did_you_mean("dep", {"deps", "id"}), " (did you mean 'deps'?)");
}

TEST(StrictJson, PointerTokensAreEscaped) {
  EXPECT_EQ(pointer_token("a/b~c"), "a~1b~0c");
  EXPECT_EQ(pointer_token("Input Dims"), "Input Dims");
}

TEST(StrictJson, ReaderRejectsUnknownKeysWithSuggestion) {
  const nlohmann::json j = {{"hiden", 1}};
  const ObjectReader r(j, "f.json", "/x", "thing");
  try {
    r.allow_only({"hidden", "ffn"});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "f.json");
    EXPECT_EQ(e.pointer(), "/x/hiden");
    EXPECT_NE(std::string(e.what()).find("did you mean 'hidden'"), std::string::npos);
  }
}

TEST(StrictJson, IntegersMustBeIntegersInRange) {
  const nlohmann::json j = {
      {"a", 5}, {"b", 5.0}, {"c", -1}, {"d", "5"}, {"e", 18446744073709551615u}};
  const ObjectReader r(j, "f.json", "", "thing");
  EXPECT_EQ(r.integer("a", 1, 10), 5);
  EXPECT_THROW(r.integer("b", 1, 10), ConfigError);
  EXPECT_THROW(r.integer("c", 1, 10), ConfigError);
  EXPECT_THROW(r.integer("d", 1, 10), ConfigError);
  EXPECT_THROW(r.integer("e", 1, 10), ConfigError);
  EXPECT_THROW(r.integer("missing", 1, 10), ConfigError);
}

TEST(StrictJson, NonObjectIsRejected) {
  EXPECT_THROW(ObjectReader(nlohmann::json::array(), "f.json", "/ops/0", "op #0"), ConfigError);
}

TEST(StrictJson, ReadJsonFileReportsMissingFileAndSyntax) {
  EXPECT_THROW(read_json_file("/nonexistent/t3sim.json"), ConfigError);
}

}  // namespace
}  // namespace t3sim
