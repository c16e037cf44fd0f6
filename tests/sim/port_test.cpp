// Contracts of sim/port.h: a Link serialises messages at its bandwidth (FIFO, rounded up), adds its
// latency, limits messages in flight with credits, and the wiring check in Simulator::elaborate()
// rejects unconnected ports, dangling links and unknown port names.
#include "sim/port.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim {
namespace {

using namespace literals;

struct Msg {
  int id = 0;
};

class Source : public Component, public CreditListener {
 public:
  Source(Simulator& sim, std::string name, bool optional = false)
      : Component(sim, &sim.root(), std::move(name)), out(*this, "out", this, optional) {
    declare_port(out);
  }
  void credit_available() override { credit_times.push_back(now().ps()); }
  OutPort<Msg> out;
  std::vector<uint64_t> credit_times;
};

class Dest : public Component, public Receiver<Msg> {
 public:
  Dest(Simulator& sim, std::string name, bool optional = false)
      : Component(sim, &sim.root(), std::move(name)), in(*this, "in", *this, optional) {
    declare_port(in);
  }
  void receive(Msg& m) override {
    got.push_back(m.id);
    times.push_back(now().ps());
    if (auto_release) in.release();
  }
  InPort<Msg> in;
  std::vector<int> got;
  std::vector<uint64_t> times;
  bool auto_release = false;
};

struct Wired {
  explicit Wired(uint32_t credits = 0, Duration latency = 100_ns, Bandwidth bw = Bandwidth::gbps(1))
      : src(sim, "src"), dst(sim, "dst"), link(sim, &sim.root(), "link", latency, bw, credits) {
    link.connect(src.out, dst.in);
  }
  Simulator sim;
  Source src;
  Dest dst;
  Link<Msg> link;
};

TEST(Link, SerialisesBackToBackMessagesThenAddsLatency) {
  Wired w;  // 1 GB/s: 1000 B take 1 us
  w.sim.elaborate();
  EXPECT_EQ(w.src.out.send(Msg{1}, Bytes(1000)).ps(), 1'000'000U);
  EXPECT_EQ(w.src.out.send(Msg{2}, Bytes(1000)).ps(), 2'000'000U);
  w.sim.run();
  EXPECT_EQ(w.dst.got, (std::vector<int>{1, 2}));
  // First at size/bw + latency, second at 2 * size/bw + latency.
  EXPECT_EQ(w.dst.times, (std::vector<uint64_t>{1'100'000, 2'100'000}));
  EXPECT_EQ(w.link.bytes_carried(), 2000U);
}

TEST(Link, AnIdleLinkStartsAtNowAndAddsOnlyLatency) {
  Wired w(0, 250_ns, Bandwidth::gbps(1000));  // 1 B takes 1 ps
  w.sim.elaborate();
  w.src.out.send(Msg{1}, Bytes(1));
  w.sim.run();
  EXPECT_EQ(w.dst.times, (std::vector<uint64_t>{250'001}));
  // Long idle: the next message starts serialising at now, not where the link last went idle.
  EXPECT_EQ(w.src.out.send(Msg{2}, Bytes(2)).ps(), 250'003U);
  w.sim.run();
  EXPECT_EQ(w.dst.times, (std::vector<uint64_t>{250'001, 500'003}));
  EXPECT_EQ(w.link.latency(), 250_ns);
  EXPECT_EQ(w.link.bandwidth(), Bandwidth::gbps(1000));
}

TEST(Link, SerialisationRoundsUpAndKeepsFifoOrder) {
  Wired w(0, 0_ps, Bandwidth::bytes_per_s(3'000'000'000'000ULL));  // 3 B/ps
  w.sim.elaborate();
  w.src.out.send(Msg{1}, Bytes(10));  // 3.33 ps -> 4 ps
  w.src.out.send(Msg{2}, Bytes(1));   // 0.33 ps -> 1 ps, still after the first
  EXPECT_EQ(w.link.busy_until().ps(), 5U);
  w.sim.run();
  EXPECT_EQ(w.dst.got, (std::vector<int>{1, 2}));
  EXPECT_EQ(w.dst.times, (std::vector<uint64_t>{4, 5}));
}

TEST(Link, CountsBytesMessagesAndBusyTime) {
  Wired w;
  w.sim.elaborate();
  w.src.out.send(Msg{1}, Bytes(500));
  w.src.out.send(Msg{2}, Bytes(1500));
  w.sim.run();
  const auto j = w.sim.stats().dump(w.sim.now());
  EXPECT_EQ(j["link"]["bytes"]["value"], 2000U);
  EXPECT_EQ(j["link"]["messages"]["value"], 2U);
  EXPECT_EQ(j["link"]["busy_ps"]["value"], 2'000'000U);
  EXPECT_EQ(j["link"]["bytes"]["unit"], "B");
}

TEST(Link, CreditsBlockTheThirdSendUntilRelease) {
  Wired w(2);
  w.sim.elaborate();
  EXPECT_TRUE(w.src.out.can_send());
  w.src.out.send(Msg{1}, Bytes(100));
  w.src.out.send(Msg{2}, Bytes(100));
  EXPECT_FALSE(w.src.out.can_send());
  EXPECT_THROW(w.src.out.send(Msg{3}, Bytes(100)), ModelError);
  w.sim.run();  // both delivered, but the receiver has not released them
  EXPECT_EQ(w.dst.got.size(), 2U);
  EXPECT_FALSE(w.src.out.can_send());
  EXPECT_TRUE(w.src.credit_times.empty());
  w.dst.in.release();
  EXPECT_EQ(w.src.credit_times.size(), 1U);  // CreditListener called
  EXPECT_TRUE(w.src.out.can_send());
  w.src.out.send(Msg{3}, Bytes(100));
  EXPECT_FALSE(w.src.out.can_send());
  w.dst.in.release();
  w.dst.in.release();
  EXPECT_EQ(w.src.credit_times.size(), 3U);
  w.sim.run();
  EXPECT_EQ(w.dst.got, (std::vector<int>{1, 2, 3}));
}

TEST(Link, ReturningMoreCreditsThanTakenIsAModelError) {
  Wired w(1);
  w.sim.elaborate();
  w.src.out.send(Msg{1}, Bytes(10));
  w.sim.run();
  w.dst.in.release();
  EXPECT_THROW(w.dst.in.release(), ModelError);
}

TEST(Link, WithoutCreditsReleaseIsANoOp) {
  Wired w;
  w.sim.elaborate();
  w.dst.in.release();
  EXPECT_TRUE(w.src.credit_times.empty());
  EXPECT_TRUE(w.src.out.can_send());
}

TEST(Link, FinishReportsMessagesStillInFlight) {
  Wired w;
  w.sim.elaborate();
  w.src.out.send(Msg{1}, Bytes(1000));
  w.sim.run_until(Tick::from_ps(10));
  EXPECT_THROW(w.sim.finish(), ModelError);
  w.sim.run();
  EXPECT_NO_THROW(w.sim.finish());
}

TEST(Link, ZeroBandwidthIsRejected) {
  Simulator sim;
  EXPECT_THROW(Link<Msg>(sim, &sim.root(), "l", 1_ns, Bandwidth::bytes_per_s(0)), ModelError);
}

TEST(Link, APortConnectsOnlyOnce) {
  Wired w;
  Link<Msg> second(w.sim, &w.sim.root(), "second", 1_ns, Bandwidth::gbps(1));
  EXPECT_THROW(second.connect_src(w.src.out), ModelError);
  EXPECT_THROW(second.connect_dst(w.dst.in), ModelError);
}

TEST(Elaborate, UnconnectedRequiredPortIsAConfigError) {
  Simulator sim;
  Source src(sim, "src");
  try {
    sim.elaborate();
    FAIL() << "unconnected port accepted";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("src"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'out' is not connected"), std::string::npos) << msg;
  }
  EXPECT_THROW(sim.run(), ConfigError);  // run() elaborates first
}

TEST(Elaborate, UnconnectedOptionalPortIsFine) {
  Simulator sim;
  Source src(sim, "src", /*optional=*/true);
  EXPECT_NO_THROW(sim.elaborate());
}

TEST(Elaborate, DanglingLinkIsAConfigError) {
  Simulator sim;
  Source src(sim, "src");
  Link<Msg> link(sim, &sim.root(), "link", 1_ns, Bandwidth::gbps(1));
  link.connect_src(src.out);  // no destination
  try {
    sim.elaborate();
    FAIL() << "dangling link accepted";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("link"), std::string::npos) << msg;
    EXPECT_NE(msg.find("dangling"), std::string::npos) << msg;
    EXPECT_NE(msg.find("destination"), std::string::npos) << msg;
  }
}

TEST(Elaborate, LinkWithoutSourceIsAConfigError) {
  Simulator sim;
  Dest dst(sim, "dst");
  Link<Msg> link(sim, &sim.root(), "link", 1_ns, Bandwidth::gbps(1));
  link.connect_dst(dst.in);
  EXPECT_THROW(sim.elaborate(), ConfigError);
}

TEST(Elaborate, FullyWiredSystemPasses) {
  Wired w;
  EXPECT_NO_THROW(w.sim.elaborate());
}

TEST(Elaborate, UnknownPortNameWhenWiringByNameSuggestsTheRightOne) {
  Simulator sim;
  Source src(sim, "src");
  try {
    src.port("uot");
    FAIL() << "unknown port accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'out'"), std::string::npos) << e.what();
  }
  // Wiring by name through the base class works for the right name.
  auto* out = dynamic_cast<OutPort<Msg>*>(&src.port("out"));
  ASSERT_NE(out, nullptr);
  EXPECT_FALSE(out->connected());
  EXPECT_EQ(out->link(), nullptr);
}

}  // namespace
}  // namespace t3sim
