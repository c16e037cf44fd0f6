// Contracts of sim/registry.h: explicit registration, unique type names, lookup with a suggestion,
// and describe() listing params, ports and stats from a throw-away example instance.
#include "sim/registry.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/errors.h"
#include "sim/port.h"
#include "sim/simulator.h"

namespace t3sim {
namespace {

struct Word {
  int v = 0;
};

Params echo_params() {
  Params p;
  p.required("delay", ParamKind::kDuration, "time to echo");
  p.optional("depth", ParamKind::kInt, 4, "queue depth").range(1, 64);
  return p;
}

class Echo : public Component, public Receiver<Word> {
 public:
  Echo(Simulator& sim, Component* parent, const std::string& name, const ConfigNode& cfg)
      : Component(sim, parent, name), params_(bind(echo_params(), cfg)) {
    declare_port(in_);
    declare_port(out_);
    stats().add("echoed", echoed_, "count", "words echoed");
  }
  void receive(Word&) override { echoed_.inc(); }
  Duration delay() const { return params_.duration("delay"); }

 private:
  BoundParams params_;
  InPort<Word> in_{*this, "in", *this};
  OutPort<Word> out_{*this, "out"};
  Counter echoed_;
};

ComponentType echo_type() {
  ComponentType t;
  t.type = "echo";
  t.description = "echoes words after a delay";
  t.params = echo_params;
  t.example_config = {{"delay", "5 ns"}};
  t.build = [](Simulator& sim, Component* parent, const std::string& name, const ConfigNode& c) {
    return std::make_unique<Echo>(sim, parent, name, c);
  };
  return t;
}

TEST(Registry, AddGetAndList) {
  Registry r;
  r.add(echo_type());
  ComponentType spec;
  spec.type = "compute_spec";
  spec.params = [] { return Params(); };
  r.add(spec);
  EXPECT_EQ(r.get("echo").description, "echoes words after a delay");
  EXPECT_EQ(r.types(), (std::vector<std::string>{"compute_spec", "echo"}));  // sorted
}

TEST(Registry, DuplicateTypeThrows) {
  Registry r;
  r.add(echo_type());
  EXPECT_THROW(r.add(echo_type()), ModelError);
}

TEST(Registry, UnknownTypeSuggestsTheNearest) {
  Registry r;
  r.add(echo_type());
  try {
    r.get("ecoh");
    FAIL() << "unknown type accepted";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unknown component type 'ecoh'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("did you mean 'echo'"), std::string::npos) << msg;
  }
}

TEST(Registry, BuildUsesTheBoundConfig) {
  Registry r;
  r.add(echo_type());
  Simulator sim;
  const ConfigDoc doc = config_from_json({{"delay", "7 ns"}, {"depth", 8}}, "test");
  auto c = r.get("echo").build(sim, &sim.root(), "e0", ConfigNode::root(doc));
  EXPECT_EQ(c->path(), "e0");
  EXPECT_EQ(static_cast<Echo&>(*c).delay().count_ps(), 7000U);
}

TEST(Registry, DescribeListsParamsPortsAndStats) {
  Registry r;
  r.add(echo_type());
  const auto d = r.describe("echo");
  EXPECT_EQ(d["type"], "echo");
  ASSERT_EQ(d["params"].size(), 2U);
  EXPECT_EQ(d["params"][0]["name"], "delay");
  EXPECT_EQ(d["params"][0]["required"], true);
  EXPECT_EQ(d["params"][1]["default"], 4);
  EXPECT_EQ(d["ports"], (nlohmann::ordered_json{"in", "out"}));
  ASSERT_EQ(d["stats"].size(), 1U);
  EXPECT_EQ(d["stats"][0]["name"], "echoed");
  EXPECT_EQ(d["stats"][0]["unit"], "count");
}

TEST(Registry, DescribeOfAParameterSetHasNoInstance) {
  Registry r;
  ComponentType spec;
  spec.type = "compute_spec";
  spec.description = "a parameter set";
  spec.params = [] {
    Params p;
    p.required("cus", ParamKind::kInt, "compute units");
    return p;
  };
  r.add(spec);
  const auto d = r.describe("compute_spec");
  EXPECT_EQ(d["params"][0]["name"], "cus");
  EXPECT_FALSE(d.contains("ports"));
}

}  // namespace
}  // namespace t3sim
