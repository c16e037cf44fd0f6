// The flow table's lookup: a message joins the flow of its (source, destination, segment), also
// when two flows share a line of the direct-mapped cache in front of the hash map, and a flow's
// first hop is its route's first edge.
#include <gtest/gtest.h>

#include "models/fabric/builders.h"
#include "models/fabric/flow_table.h"
#include "models/fabric/routing.h"

namespace t3sim::fabric {
namespace {

Topology ring(int gpus) {
  FabricConfig c;
  c.topology = "ring";
  c.gpus = gpus;
  c.link = LinkSpec{Bandwidth::gbps(75), Duration::ns(500), Bytes::kib(64), 0};
  return build_topology(c);
}

TEST(FlowTable, FlowsSharingACacheLineKeepTheirOwnSlots) {
  const Topology topo = ring(128);
  const RouteTable routes(topo);
  FlowTable table(routes, Bytes::kib(64));
  // Keys 0 x 128 + 1 and 0 x 128 + 65 fall on the same line of the 64-line cache.
  const uint32_t a1 = table.add(0, 1, Bytes::kib(4), nullptr, 1);
  const uint32_t b1 = table.add(0, 65, Bytes::kib(4), nullptr, 2);
  const uint32_t a2 = table.add(0, 1, Bytes::kib(4), nullptr, 3);
  const uint32_t b2 = table.add(0, 65, Bytes::kib(4), nullptr, 4);
  const uint32_t b3 = table.add(0, 65, Bytes::kib(4), nullptr, 7);  // a hit on the shared line
  const uint32_t s1 = table.add(0, 64, Bytes::kib(4), nullptr, 5, Segment::kToSwitch);
  EXPECT_EQ(table.first_slot_of(a1), table.first_slot_of(a2));
  EXPECT_EQ(table.first_slot_of(b1), table.first_slot_of(b2));
  EXPECT_EQ(table.first_slot_of(b1), table.first_slot_of(b3));
  EXPECT_NE(table.first_slot_of(a1), table.first_slot_of(b1));
  EXPECT_NE(table.first_slot_of(s1),
            table.first_slot_of(table.add(0, 64, Bytes::kib(4), nullptr, 6)));
  EXPECT_EQ(table.slot(table.first_slot_of(a2)).edge, routes.path(0, 1).front());
  EXPECT_EQ(table.slot(table.first_slot_of(b2)).edge, routes.path(0, 65).front());
  // Each flow queued its messages at its first hop, in send order.
  EXPECT_EQ(table.slot(table.first_slot_of(a1)).ready, 2u);
  EXPECT_EQ(table.slot(table.first_slot_of(b1)).ready, 3u);
  EXPECT_EQ(table.complete(a1).tag, 1u);
  EXPECT_EQ(table.complete(b1).tag, 2u);
}

}  // namespace
}  // namespace t3sim::fabric
