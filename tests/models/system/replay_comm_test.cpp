// Trace replay of the communication kinds beyond the ring collectives: broadcast, reduce and
// all-to-all take the collectives library's time (as `t3sim nccl-tests`); a send takes the
// library's send/recv time to its peer offset, and the matched recv ends when the send's data has
// arrived; an unmatched recv is its own transfer; a peer the library cannot reach is counted as
// communication not simulated, or refused under strict.
#include <gtest/gtest.h>

#include "models/system/library_collective.h"
#include "models/system/replay.h"
#include "models/system/system.h"
#include "sim/errors.h"
#include "tests/support/fixtures.h"

namespace t3sim::system {
namespace {

using workload::Op;
using workload::OpKind;
using workload::Trace;

const std::filesystem::path kConfigs = t3sim::testing::fixtures_dir();

const ConfigDoc& ring8() {
  static const ConfigDoc doc = load_system_config("t3-ring-8", kConfigs);
  return doc;
}

Op comm(const std::string& id, OpKind kind, int stream, int peer = 0,
        std::vector<std::string> deps = {}) {
  Op op;
  op.id = id;
  op.kind = kind;
  op.bytes = 256 << 10;
  op.dtype = workload::Dtype::kFp32;
  op.stream = stream;
  op.tp_group = 8;
  op.peer = peer;
  op.deps = std::move(deps);
  return op;
}

double library_time(collectives::Kind kind, std::vector<int> group = {}) {
  collectives::CollectiveSpec spec;
  spec.kind = kind;
  spec.bytes = 256 << 10;
  spec.elem_bytes = 4;
  spec.group = std::move(group);
  return run_library_collective(ring8(), spec);
}

TEST(ReplayComm, RootedAndAllToAllCollectivesTakeTheLibrarysTime) {
  Trace t;
  t.ops = {comm("b", OpKind::kBroadcast, 1), comm("r", OpKind::kReduce, 1),
           comm("a", OpKind::kAllToAll, 1)};
  const ReplayResult r = replay_trace(ring8(), t, "comm.json");
  const collectives::Kind kinds[] = {collectives::Kind::kBroadcast, collectives::Kind::kReduce,
                                     collectives::Kind::kAllToAll};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_GT(r.ops[i].duration_us, 1.0) << r.ops[i].id;
    EXPECT_DOUBLE_EQ(r.ops[i].duration_us, library_time(kinds[i])) << r.ops[i].id;
    EXPECT_EQ(r.ops[i].model, "collective");
  }
  EXPECT_EQ(r.comm_ops, 3u);
  EXPECT_NEAR(r.comm_us, r.total_us, 1e-9);  // one stream of communication, back to back
  EXPECT_EQ(r.unsimulated_comm_ops, 0u);
}

// Every rank sends to rank + 1 (stream 1) while its recv from rank - 1 waits on stream 2: the
// recv ends when the send's data lands.
TEST(ReplayComm, MatchedRecvEndsWhenItsSendHas) {
  Trace t;
  t.ops = {comm("s", OpKind::kSend, 1, 1), comm("v", OpKind::kRecv, 2, 7)};
  const ReplayResult r = replay_trace(ring8(), t, "p2p.json");
  const double transfer = library_time(collectives::Kind::kSendRecv);
  EXPECT_GT(transfer, 0.5);
  EXPECT_DOUBLE_EQ(r.ops[0].duration_us, transfer);
  EXPECT_EQ(r.ops[0].model, "p2p");
  EXPECT_DOUBLE_EQ(r.ops[1].start_us, 0.0);
  EXPECT_DOUBLE_EQ(r.ops[1].end_us(), r.ops[0].end_us());
  EXPECT_EQ(r.ops[1].model, "p2p (data of s)");
  EXPECT_DOUBLE_EQ(r.comm_us, transfer);
  // Sending to rank - 1 (peer 7) runs the library's send/recv on the reversed ring.
  Trace back;
  back.ops = {comm("s", OpKind::kSend, 1, 7)};
  EXPECT_DOUBLE_EQ(replay_trace(ring8(), back, "back.json").ops[0].duration_us,
                   library_time(collectives::Kind::kSendRecv, {0, 7, 6, 5, 4, 3, 2, 1}));
}

// A recv whose send waits for it (every rank receives before it sends) cannot take the send's
// data without a deadlock: it is its own transfer, like a recv with no send at all.
TEST(ReplayComm, RecvThatCannotMatchIsItsOwnTransfer) {
  Trace t;
  t.ops = {comm("v", OpKind::kRecv, 1, 7), comm("s", OpKind::kSend, 1, 1, {"v"})};
  const ReplayResult r = replay_trace(ring8(), t, "first.json");
  const double transfer = library_time(collectives::Kind::kSendRecv);
  EXPECT_DOUBLE_EQ(r.ops[0].duration_us, r.ops[1].duration_us);
  EXPECT_EQ(r.ops[0].model, "p2p");
  EXPECT_GT(r.ops[0].duration_us, 0.5);
  EXPECT_NEAR(r.total_us, r.ops[0].duration_us + transfer, 1e-9);
  // A lone recv from rank + 1: every rank's sender is the next rank, the reversed ring.
  Trace lone;
  lone.ops = {comm("v", OpKind::kRecv, 1, 1)};
  EXPECT_DOUBLE_EQ(replay_trace(ring8(), lone, "lone.json").ops[0].duration_us,
                   library_time(collectives::Kind::kSendRecv, {0, 7, 6, 5, 4, 3, 2, 1}));
}

TEST(ReplayComm, UnreachablePeerIsCountedOrRefusedUnderStrict) {
  Trace t;
  Op send = comm("s", OpKind::kSend, 1, 2);  // rank + 2 on 8 ranks: two cycles, not one ring
  send.measured_us = 12.5;
  t.ops = {send, comm("a", OpKind::kAllToAll, 1, 0, {"s"})};
  const ReplayResult r = replay_trace(ring8(), t, "pairs.json");
  EXPECT_EQ(r.ops[0].model, "not simulated");
  EXPECT_DOUBLE_EQ(r.ops[0].duration_us, 12.5);
  EXPECT_EQ(r.unsimulated_comm_ops, 1u);
  EXPECT_DOUBLE_EQ(r.unsimulated_comm_us, 12.5);
  EXPECT_NEAR(r.comm_us, r.ops[1].duration_us, 1e-9);
  ReplayOptions strict;
  strict.strict = true;
  try {
    replay_trace(ring8(), t, "pairs.json", strict);
    FAIL() << "strict replay accepted a send it cannot simulate";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/ops/0/peer");
    EXPECT_NE(e.message().find("--strict"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace t3sim::system
