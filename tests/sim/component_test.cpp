// Contracts of sim/component.h: hierarchical names, unique child names, stats groups mirroring the
// tree, port lookup with "did you mean", and member-event scheduling through the component.
#include "sim/component.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/errors.h"
#include "sim/port.h"
#include "sim/simulator.h"

namespace t3sim {
namespace {

using namespace literals;

class Node : public Component {
 public:
  Node(Simulator& sim, Component* parent, std::string name)
      : Component(sim, parent, std::move(name)) {}
};

struct Msg {
  int v = 0;
};

class Sink : public Component, public Receiver<Msg> {
 public:
  Sink(Simulator& sim, Component* parent, std::string name)
      : Component(sim, parent, std::move(name)) {
    declare_port(in_);
    declare_port(out_data_);
    declare_port(out_ctrl_);
  }
  void receive(Msg&) override {}
  void declare_again() { declare_port(in_); }

 private:
  InPort<Msg> in_{*this, "in", *this, /*optional=*/true};
  OutPort<Msg> out_data_{*this, "out_data", nullptr, /*optional=*/true};
  OutPort<Msg> out_ctrl_{*this, "out_ctrl", nullptr, /*optional=*/true};
};

TEST(Component, PathsAreDottedFromTheRoot) {
  Simulator sim;
  Node a(sim, &sim.root(), "a");
  Node b(sim, &a, "b");
  Node c(sim, &b, "c");
  EXPECT_EQ(sim.root().path(), "");
  EXPECT_EQ(a.path(), "a");
  EXPECT_EQ(b.path(), "a.b");
  EXPECT_EQ(c.path(), "a.b.c");
  EXPECT_EQ(c.name(), "c");
  EXPECT_EQ(c.parent(), &b);
  ASSERT_EQ(a.children().size(), 1U);
  EXPECT_EQ(a.children()[0], &b);
  EXPECT_EQ(&c.sim(), &sim);
}

TEST(Component, DuplicateChildNamesThrow) {
  Simulator sim;
  Node a(sim, &sim.root(), "a");
  Node x(sim, &a, "x");
  EXPECT_THROW(Node(sim, &a, "x"), ModelError);
  EXPECT_EQ(a.children().size(), 1U);  // the failed child did not register
  Node b(sim, &sim.root(), "b");
  EXPECT_NO_THROW(Node(sim, &b, "x"));  // the same name under another parent is fine
}

TEST(Component, DestroyedChildrenLeaveTheirParent) {
  Simulator sim;
  Node a(sim, &sim.root(), "a");
  {
    Node tmp(sim, &a, "tmp");
    EXPECT_EQ(a.children().size(), 1U);
  }
  EXPECT_TRUE(a.children().empty());
}

TEST(Component, StatsGroupsMirrorTheTree) {
  Simulator sim;
  Node a(sim, &sim.root(), "a");
  Node b(sim, &a, "b");
  Counter n;
  n.inc(5);
  b.stats().add("n", n, "count", "things");
  const auto j = sim.stats().dump(sim.now());
  EXPECT_EQ(j["a"]["b"]["n"]["value"], 5U);
  EXPECT_EQ(b.stats().name(), "b");
}

TEST(Component, PortLookupSuggestsTheNearestName) {
  Simulator sim;
  Sink s(sim, &sim.root(), "sink");
  EXPECT_EQ(s.port("out_data").name(), "out_data");
  EXPECT_EQ(s.port("in").path(), "sink.in");
  EXPECT_EQ(s.ports().size(), 3U);
  try {
    s.port("out_dta");
    FAIL() << "unknown port accepted";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unknown port 'out_dta'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("did you mean 'out_data'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("sink"), std::string::npos) << msg;
  }
  try {
    s.port("completely_unrelated");
    FAIL() << "unknown port accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
  }
}

TEST(Component, DeclaringAPortTwiceThrows) {
  Simulator sim;
  Sink s(sim, &sim.root(), "sink");
  EXPECT_THROW(s.declare_again(), ModelError);
}

class Pinger : public Component {
 public:
  explicit Pinger(Simulator& sim) : Component(sim, &sim.root(), "pinger"), ev_(this) {}
  void init() override { schedule(ev_, 10_ns); }
  void ping() {
    times.push_back(now().ps());
    if (times.size() == 1) schedule_at(ev_, Tick::from_ps(25'000), Priority::kLast);
  }
  std::vector<uint64_t> times;

 private:
  MemberEvent<Pinger, &Pinger::ping> ev_;
};

TEST(Component, SchedulesItsOwnMemberEvents) {
  Simulator sim;
  Pinger p(sim);
  sim.run();
  EXPECT_EQ(p.times, (std::vector<uint64_t>{10'000, 25'000}));
}

}  // namespace
}  // namespace t3sim
