// In-switch reduction as a fabric service (models/fabric/switch_reduction.h): every copy is
// counted once, the reduced copy reaches its GPU once and as a whole message would, bytes are
// conserved across the switch, a reducer slower than its port queues reductions at its rate, and
// fabrics or copies that cannot reduce are refused.
#include "models/fabric/switch_reduction.h"

#include <gtest/gtest.h>

#include <string>

#include "fabric_test_util.h"

namespace t3sim::fabric {
namespace {

using testing::Harness;

constexpr uint64_t kBytes = 64 * 1024;  // one packet: 1.024 us on a 64 GB/s link

nlohmann::json reducing_switch(int gpus, const std::string& rate = "64 GB/s") {
  nlohmann::json c = testing::switch_cfg(gpus);
  c["switch"]["reduce_bandwidth"] = rate;
  return c;
}

common::SwitchReduction reduction(int dst, uint32_t copies, common::FabricReceiver* rx,
                                  uint64_t tag) {
  common::SwitchReduction r;
  r.dst = dst;
  r.contributions = copies;
  r.bytes = Bytes(kBytes);
  r.rx = rx;
  r.tag = tag;
  return r;
}

TEST(SwitchReduction, EveryCopyCountsOnceAndOneReducedCopyArrives) {
  Harness h(reducing_switch(4));
  ASSERT_TRUE(h.fabric->has_switch_reduction());
  const common::SwitchReduction r = reduction(2, 4, &h.rx, 99);
  for (int g = 0; g < 4; ++g) h.fabric->reduce_in_switch(g, -1, r, &h.rx, 10 + g);
  const Tick end = h.run();        // finish(): conservation and nothing left open
  ASSERT_EQ(h.rx.log.size(), 5u);  // four copies in the switch, then the reduced copy
  for (int g = 0; g < 4; ++g) EXPECT_LT(h.rx.at(10 + g), h.rx.at(99));
  EXPECT_EQ(h.rx.log.back().tag, 99u);
  const SwitchReductions& s = *h.fabric->switch_reductions();
  EXPECT_EQ(s.reductions(), 1u);
  EXPECT_EQ(s.contributions(), 4u);
  EXPECT_EQ(h.fabric->total_link_bytes(), 5 * kBytes);  // four up, one down
  // The copies go up at once, so the reduced copy arrives as one GPU-to-GPU message would.
  Harness plain(testing::switch_cfg(4));
  plain.send(0, 2, kBytes, 1);
  EXPECT_EQ(end, plain.run());
}

TEST(SwitchReduction, ASlowReducerQueuesReductionsOfOnePort) {
  // Two reductions for GPU 1 complete one packet time apart (their copies share the uplinks): at
  // the port's rate the second reduced copy follows the first by that time; a reducer at half
  // the rate holds it back until the first reduction has left the reducer.
  Duration gap[2];
  int i = 0;
  for (const char* rate : {"64 GB/s", "32 GB/s"}) {
    Harness h(reducing_switch(2, rate));
    for (uint64_t tag : {1, 2}) {
      for (int g = 0; g < 2; ++g)
        h.fabric->reduce_in_switch(g, -1, reduction(1, 2, &h.rx, tag), nullptr, 0);
    }
    h.run();
    gap[i++] = h.rx.at(2) - h.rx.at(1);
    EXPECT_EQ(h.fabric->switch_reductions()->reducer_waits(), i == 1 ? 0u : 1u);
  }
  EXPECT_EQ(gap[0], transfer_time(Bytes(kBytes), Bandwidth::gbps(64)));
  EXPECT_EQ(gap[1], transfer_time(Bytes(kBytes), Bandwidth::gbps(32)));
}

TEST(SwitchReduction, AnUnfinishedReductionFailsTheRun) {
  Harness h(reducing_switch(4));
  h.fabric->reduce_in_switch(0, -1, reduction(1, 4, &h.rx, 7), nullptr, 0);
  EXPECT_THROW(h.run(), ModelError);
}

TEST(SwitchReduction, CopiesMustAgreeOnTheirReduction) {
  Harness h(reducing_switch(4));
  h.fabric->reduce_in_switch(0, -1, reduction(1, 4, &h.rx, 7), nullptr, 0);
  EXPECT_THROW(h.fabric->reduce_in_switch(2, -1, reduction(3, 4, &h.rx, 7), nullptr, 0),
               ModelError);
  EXPECT_THROW(h.fabric->reduce_in_switch(2, -1, reduction(1, 3, &h.rx, 7), nullptr, 0),
               ModelError);
}

TEST(SwitchReduction, FabricsWithoutAReducingSwitchRefuse) {
  Harness plain(testing::switch_cfg(4));  // no reduce_bandwidth: no NVLink SHARP
  EXPECT_FALSE(plain.fabric->has_switch_reduction());
  EXPECT_THROW(plain.fabric->reduce_in_switch(0, -1, reduction(1, 4, &plain.rx, 1), nullptr, 0),
               ModelError);
  Harness ring(testing::ring_cfg(4));
  EXPECT_FALSE(ring.fabric->has_switch_reduction());
  nlohmann::json flow = reducing_switch(4);
  flow["model"] = "flow";
  Harness fluid(flow);
  EXPECT_FALSE(fluid.fabric->has_switch_reduction());
}

}  // namespace
}  // namespace t3sim::fabric
