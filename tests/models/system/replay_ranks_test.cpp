// Multi-rank replay (replay_ranks.h): one trace per rank on the 8-GPU ring, collectives matched
// across the ranks, so a late rank makes the others wait; sends matched with the receiving
// rank's recvs; mismatched collectives and cross-rank cycles refused.
#include "models/system/replay_ranks.h"

#include <gtest/gtest.h>

#include "sim/errors.h"
#include "tests/models/system/small_systems.h"

namespace t3sim::system {
namespace {

using testing::ring8;
using workload::Op;
using workload::OpKind;
using workload::Trace;

Op fixed(const std::string& id, double us, std::vector<std::string> deps = {}) {
  Op op;
  op.id = id;
  op.kind = OpKind::kFixed;
  op.duration_us = us;
  op.deps = std::move(deps);
  return op;
}

Op comm(const std::string& id, OpKind kind, int stream, std::vector<std::string> deps = {},
        int peer = 0, int64_t bytes = 256 << 10) {
  Op op;
  op.id = id;
  op.kind = kind;
  op.bytes = bytes;
  op.dtype = workload::Dtype::kFp32;
  op.stream = stream;
  op.tp_group = 8;
  op.peer = peer;
  op.deps = std::move(deps);
  return op;
}

std::vector<std::string> names(size_t n) {
  std::vector<std::string> files;
  for (size_t r = 0; r < n; ++r) files.push_back("rank" + std::to_string(r) + ".json");
  return files;
}

// Every rank computes 10 us then all-reduces; rank 3 computes 60 us: the others wait 50 us in
// the all-reduce, which ends at the same time everywhere.
TEST(ReplayRanks, StragglerMakesTheOthersWaitInTheCollective) {
  std::vector<Trace> traces(8);
  for (size_t r = 0; r < 8; ++r) {
    traces[r].ops = {fixed("compute", r == 3 ? 60 : 10),
                     comm("ar", OpKind::kAllReduce, 1, {"compute"})};
  }
  const MultiRankReplay m = replay_ranks(ring8(), traces, names(8));
  Trace alone;
  alone.ops = {comm("ar", OpKind::kAllReduce, 1)};
  const double ar = replay_trace(ring8(), alone, "alone.json").total_us;
  ASSERT_GT(ar, 1.0);
  EXPECT_EQ(m.collectives, 1u);
  EXPECT_EQ(m.slowest_rank, 3);
  EXPECT_NEAR(m.total_us, 60 + ar, 1e-9);
  for (size_t r = 0; r < 8; ++r) {
    const RankReplay& k = m.ranks[r];
    EXPECT_NEAR(k.result.ops[1].end_us(), 60 + ar, 1e-9) << r;
    EXPECT_NEAR(k.wait_us, r == 3 ? 0.0 : 50.0, 1e-9) << r;
    EXPECT_NEAR(k.result.comm_us, r == 3 ? ar : ar + 50, 1e-9) << r;
    EXPECT_NEAR(k.exposed_comm_us, k.result.comm_us, 1e-9) << r;  // nothing else runs
  }
}

// Ranks running the same program replay as the single-program replay does.
TEST(ReplayRanks, IdenticalRanksMatchTheSingleProgramReplay) {
  Trace t;
  t.ops = {fixed("a", 5), comm("ar", OpKind::kAllReduce, 1, {"a"}), fixed("b", 3, {"ar"})};
  const MultiRankReplay m = replay_ranks(ring8(), std::vector<Trace>(8, t), names(8));
  const ReplayResult one = replay_trace(ring8(), t, "one.json");
  for (const RankReplay& k : m.ranks) {
    EXPECT_DOUBLE_EQ(k.result.total_us, one.total_us);
    EXPECT_DOUBLE_EQ(k.wait_us, 0.0);
  }
}

// Rank r sends to rank r + 1; rank 5 sends 40 us late, so rank 6's recv ends 40 us later.
TEST(ReplayRanks, RecvEndsWhenTheSendingRanksDataArrives) {
  std::vector<Trace> traces(8);
  for (size_t r = 0; r < 8; ++r) {
    traces[r].ops = {fixed("pre", r == 5 ? 40 : 0), comm("s", OpKind::kSend, 1, {"pre"}, 1),
                     comm("v", OpKind::kRecv, 2, {}, 7)};
  }
  const MultiRankReplay m = replay_ranks(ring8(), traces, names(8));
  EXPECT_EQ(m.matched_p2p, 8u);
  EXPECT_EQ(m.unmatched_p2p, 0u);
  const double send = m.ranks[0].result.ops[1].duration_us;
  ASSERT_GT(send, 0.5);
  EXPECT_NEAR(m.ranks[6].result.ops[2].end_us(), 40 + send, 1e-9);
  EXPECT_NEAR(m.ranks[6].wait_us, 40.0, 1e-9);
  EXPECT_NEAR(m.ranks[1].result.ops[2].end_us(), send, 1e-9);
  EXPECT_EQ(m.ranks[6].result.ops[2].model, "p2p (data of rank 5's s)");
}

TEST(ReplayRanks, MismatchedCollectivesAreRefused) {
  std::vector<Trace> traces(8);
  for (size_t r = 0; r < 8; ++r) traces[r].ops = {comm("ar", OpKind::kAllReduce, 1)};
  traces[2].ops[0].kind = OpKind::kAllGather;
  try {
    replay_ranks(ring8(), traces, names(8));
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "rank2.json");
    EXPECT_EQ(e.pointer(), "/ops/0");
    EXPECT_NE(e.message().find("rank 2: op 'ar' is collective #0"), std::string::npos) << e.what();
  }
  traces[2].ops.clear();
  traces[2].ops.push_back(fixed("f", 1));
  EXPECT_THROW(replay_ranks(ring8(), traces, names(8)), ConfigError);  // never issued
  EXPECT_THROW(replay_ranks(ring8(), std::vector<Trace>(4, traces[0]), names(4)), ConfigError);
}

// Every rank receives before it sends, across ranks: a cycle, refused.
TEST(ReplayRanks, CycleAcrossRanksIsRefused) {
  Trace t;
  t.ops = {comm("v", OpKind::kRecv, 1, {}, 7), comm("s", OpKind::kSend, 1, {"v"}, 1)};
  try {
    replay_ranks(ring8(), std::vector<Trace>(8, t), names(8));
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(e.message().find("never runs"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace t3sim::system
