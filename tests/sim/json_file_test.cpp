// sim/json_file.h: the depth limit's boundary and pointer, duplicate keys and overflowing numbers
// (rejected with their pointer), try_parse_json's three outcomes, and is_valid_utf8 against
// nlohmann::json's own UTF-8 check (the one dump() applies).
#include "sim/json_file.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "sim/errors.h"

namespace t3sim {
namespace {

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string hex(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += fmt::format("{:02x} ", c);
  return out;
}

bool dumps(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

TEST(JsonFile, DepthLimitIsInclusive) {
  EXPECT_EQ(try_parse_json(nested(kMaxJsonDepth), "t", ""),
            nlohmann::json::parse(nested(kMaxJsonDepth)));
  EXPECT_THROW(try_parse_json(nested(kMaxJsonDepth + 1), "t", ""), ConfigError);
}

TEST(JsonFile, DepthErrorPointsIntoTheValue) {
  const std::string text = R"({"a": [1, {"b/c": )" + nested(kMaxJsonDepth) + "}]}";
  try {
    try_parse_json(text, "f.json", "/root");
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "f.json");
    EXPECT_EQ(e.pointer(), "/root/a/1/b~1c/0/0/0/0/0");
  }
}

// The ConfigError that parsing `text` throws, or a failure when it parses.
ConfigError parse_error(const std::string& text) {
  try {
    try_parse_json(text, "f.json", "/root");
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << text;
  return ConfigError("", "", "");
}

TEST(JsonFile, DuplicateKeyIsRejectedWithItsPointer) {
  const ConfigError e = parse_error(R"({"a": [0, {"b": 1, "c": 2, "b": 3}]})");
  EXPECT_EQ(e.file(), "f.json");
  EXPECT_EQ(e.pointer(), "/root/a/1/b");
  EXPECT_NE(std::string(e.what()).find("duplicate key \"b\""), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("remove the duplicate"), std::string::npos) << e.what();
  EXPECT_EQ(parse_error(R"({"x/y": 1, "x/y": 1})").pointer(), "/root/x~1y");
}

TEST(JsonFile, DuplicateKeyInALargeObject) {
  std::string text = "{";
  for (int i = 0; i < 100; ++i) text += fmt::format("\"k{}\": {}, ", i, i);
  EXPECT_EQ(try_parse_json(text + "\"last\": 0}", "t", "").value().size(), 101u);
  EXPECT_EQ(parse_error(text + "\"k3\": 0}").pointer(), "/root/k3");
  EXPECT_EQ(parse_error(text + "\"k99\": 0}").pointer(), "/root/k99");
}

TEST(JsonFile, SameKeyInDifferentObjectsIsFine) {
  const std::string text = R"({"a": {"a": 1, "b": {"a": 2}}, "b": [{"a": 3}, {"a": 4}], "c": 5})";
  EXPECT_EQ(try_parse_json(text, "t", ""), nlohmann::json::parse(text));
}

TEST(JsonFile, NumberBeyondADoubleIsRejectedWithItsPointer) {
  const ConfigError e = parse_error(R"({"x": [1, -1e400]})");
  EXPECT_EQ(e.pointer(), "/root/x/1");
  EXPECT_NE(std::string(e.what()).find("-1e400"), std::string::npos) << e.what();
  EXPECT_EQ(parse_error("1e400").pointer(), "/root");
  EXPECT_EQ(try_parse_json("1e300", "t", ""), nlohmann::json(1e300));
}

TEST(JsonFile, TryParseTellsTextFromJson) {
  EXPECT_EQ(try_parse_json("[1, 2]", "t", ""), nlohmann::json({1, 2}));
  EXPECT_EQ(try_parse_json("\"x\"", "t", ""), nlohmann::json("x"));
  EXPECT_EQ(try_parse_json("2 ns", "t", ""), std::nullopt);
  EXPECT_EQ(try_parse_json("[1, /* no comments */ 2]", "t", ""), std::nullopt);
  EXPECT_EQ(try_parse_json("", "t", ""), std::nullopt);
}

TEST(JsonFile, Utf8AgreesWithNlohmann) {
  for (const std::string s : {"", "plain", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xac",
                              "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\xff"}) {
    EXPECT_EQ(is_valid_utf8(s), dumps(s)) << hex(s);
  }
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> byte(0x70, 0xff);  // mostly lead and continuation bytes
  for (int i = 0; i < 20000; ++i) {
    std::string s(static_cast<size_t>(i % 6), '\0');
    for (char& c : s) c = static_cast<char>(byte(rng));
    ASSERT_EQ(is_valid_utf8(s), dumps(s)) << hex(s);
  }
}

}  // namespace
}  // namespace t3sim
