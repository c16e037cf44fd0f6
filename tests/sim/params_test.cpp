// Contracts of sim/params.h: declarations (required/optional/range/choices), defaults filled into
// the resolved config, typed getters that refuse the wrong kind, nested object parameters, and the
// describe() output used by `t3sim describe`.
#include "sim/params.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/errors.h"

namespace t3sim {
namespace {

Params all_kinds() {
  Params p;
  p.required("count", ParamKind::kInt, "how many").at_least(1);
  p.optional("ratio", ParamKind::kReal, 0.5, "a fraction").range(0.0, 1.0);
  p.optional("on", ParamKind::kBool, true, "switch");
  p.optional("policy", ParamKind::kString, "frfcfs", "arbitration")
      .one_of({"frfcfs", "mca", "fifo"});
  p.optional("delay", ParamKind::kDuration, "500 ns", "delay");
  p.optional("clock", ParamKind::kFrequency, "1.41 GHz", "clock");
  p.optional("size", ParamKind::kBytes, "16 MiB", "capacity");
  p.optional("bw", ParamKind::kBandwidth, "400 Gb/s", "link rate").range(1e9, 1e12);
  p.optional("sub", ParamKind::kObject, nlohmann::json::object(), "nested block");
  p.optional("list", ParamKind::kArray, nlohmann::json::array(), "a list");
  return p;
}

// Bound parameters with the document their nodes refer into.
struct Bound {
  std::unique_ptr<ConfigDoc> doc;
  BoundParams p;
};

Bound bind_json(const nlohmann::json& j) {
  auto doc = std::make_unique<ConfigDoc>(config_from_json(j, "test.json"));
  BoundParams p = bind(all_kinds(), ConfigNode::root(*doc));
  return {std::move(doc), std::move(p)};
}

std::string error_of(const nlohmann::json& j) {
  try {
    bind_json(j);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Params, DefaultsFillInAndParseWithUnits) {
  const Bound bound_p = bind_json({{"count", 3}});
  const BoundParams& p = bound_p.p;
  EXPECT_EQ(p.integer("count"), 3);
  EXPECT_DOUBLE_EQ(p.real("ratio"), 0.5);
  EXPECT_TRUE(p.boolean("on"));
  EXPECT_EQ(p.str("policy"), "frfcfs");
  EXPECT_EQ(p.duration("delay").count_ps(), 500'000U);
  EXPECT_EQ(p.frequency("clock").count_hz(), 1'410'000'000U);
  EXPECT_EQ(p.bytes("size").count(), 16ULL << 20);
  EXPECT_EQ(p.bandwidth("bw").bytes_per_second(), 50'000'000'000ULL);
  EXPECT_TRUE(p.present("count"));
  EXPECT_FALSE(p.present("delay"));
  EXPECT_FALSE(p.present("not_declared"));
}

TEST(Params, GivenValuesOverrideDefaults) {
  const Bound bound_p = bind_json({{"count", 1},
                                   {"ratio", 1},  // an integer is a fine real
                                   {"on", false},
                                   {"policy", "mca"},
                                   {"delay", "1.5 us"},
                                   {"clock", "2 GHz"},
                                   {"size", "2 GB"},
                                   {"bw", "900 GB/s"}});
  const BoundParams& p = bound_p.p;
  EXPECT_DOUBLE_EQ(p.real("ratio"), 1.0);
  EXPECT_FALSE(p.boolean("on"));
  EXPECT_EQ(p.str("policy"), "mca");
  EXPECT_EQ(p.duration("delay").count_ps(), 1'500'000U);
  EXPECT_EQ(p.frequency("clock").count_hz(), 2'000'000'000U);
  EXPECT_EQ(p.bytes("size").count(), 2'000'000'000U);
  EXPECT_EQ(p.bandwidth("bw").bytes_per_second(), 900'000'000'000ULL);
  EXPECT_TRUE(p.present("delay"));
}

TEST(Params, ResolvedHoldsEveryParameterInDeclarationOrder) {
  const Bound bound_p = bind_json({{"delay", "1 us"}, {"count", 2}});
  const BoundParams& p = bound_p.p;
  const auto& r = p.resolved();
  ASSERT_EQ(r.size(), 10U);
  EXPECT_EQ(r.begin().key(), "count");
  EXPECT_EQ(r["count"], 2);
  EXPECT_EQ(r["delay"], "1 us");
  EXPECT_EQ(r["clock"], "1.41 GHz");  // the default, as written
}

TEST(Params, RangesApplyToDimensionedValuesInBaseUnits) {
  EXPECT_NE(error_of({{"count", 1}, {"bw", "2 TB/s"}}).find("out of range"), std::string::npos);
  EXPECT_NE(error_of({{"count", 1}, {"bw", "100 MB/s"}}).find("out of range"), std::string::npos);
  EXPECT_EQ(error_of({{"count", 1}, {"bw", "1 TB/s"}}), "");  // the bound itself is allowed
  EXPECT_NE(error_of({{"count", 0}}).find(">= 1"), std::string::npos);
  EXPECT_NE(error_of({{"count", 1}, {"ratio", 1.5}}).find("out of range"), std::string::npos);
}

TEST(Params, ChoicesSuggestTheNearest) {
  const std::string msg = error_of({{"count", 1}, {"policy", "frfcf"}});
  EXPECT_NE(msg.find("'frfcf' is not one of: frfcfs, mca, fifo"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'frfcfs'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/policy"), std::string::npos) << msg;
}

TEST(Params, TypesAreChecked) {
  EXPECT_NE(error_of({{"count", 1}, {"on", "yes"}}).find("must be a boolean"), std::string::npos);
  EXPECT_NE(error_of({{"count", 1}, {"policy", 3}}).find("must be a string"), std::string::npos);
  EXPECT_NE(error_of({{"count", 1}, {"sub", 3}}).find("must be a object"), std::string::npos);
  EXPECT_NE(error_of({{"count", 1}, {"list", "x"}}).find("must be a array"), std::string::npos);
  EXPECT_NE(error_of({{"count", 1}, {"size", 1024}}).find("bare number"), std::string::npos);
  EXPECT_NE(error_of({{"count", 1}, {"clock", "1.4"}}).find("bare number"), std::string::npos);
  EXPECT_NE(error_of(nlohmann::json::array()).find("expected an object"), std::string::npos);
}

TEST(Params, ObjectParametersExposeTheirNode) {
  const Bound bound_p = bind_json({{"count", 1}, {"sub", {{"x", 1}}}, {"list", {1, 2}}});
  const BoundParams& p = bound_p.p;
  const ConfigNode sub = p.node("sub");
  EXPECT_EQ(sub.pointer(), "/sub");
  EXPECT_EQ(sub.json()["x"], 1);
  EXPECT_EQ(sub.file(), "test.json");
  EXPECT_EQ(p.node("list").size(), 2U);
  // Not given: no node (the caller checks present() first).
  const Bound bound_q = bind_json({{"count", 1}});
  const BoundParams& q = bound_q.p;
  EXPECT_THROW(q.node("sub"), ModelError);
  EXPECT_THROW(q.node("nope"), ModelError);
}

TEST(Params, GettersRefuseTheWrongKindOrAnUndeclaredName) {
  const Bound bound_p = bind_json({{"count", 1}});
  const BoundParams& p = bound_p.p;
  EXPECT_THROW(p.duration("count"), ModelError);
  EXPECT_THROW(p.integer("delay"), ModelError);
  EXPECT_THROW(p.integer("missing"), ModelError);
}

TEST(Params, DescribeListsTheDeclaration) {
  const auto d = all_kinds().describe();
  ASSERT_EQ(d.size(), 10U);
  EXPECT_EQ(d[0]["name"], "count");
  EXPECT_EQ(d[0]["type"], "integer");
  EXPECT_EQ(d[0]["required"], true);
  EXPECT_EQ(d[0]["min"], 1.0);
  EXPECT_FALSE(d[0].contains("default"));
  EXPECT_EQ(d[3]["choices"], (nlohmann::ordered_json{"frfcfs", "mca", "fifo"}));
  EXPECT_EQ(d[4]["default"], "500 ns");
  EXPECT_EQ(d[4]["type"], "duration (e.g. \"500 ns\")");
  EXPECT_EQ(d[7]["max"], 1e12);
  EXPECT_EQ(all_kinds().find("bw")->kind, ParamKind::kBandwidth);
  EXPECT_EQ(all_kinds().find("none"), nullptr);
}

}  // namespace
}  // namespace t3sim
