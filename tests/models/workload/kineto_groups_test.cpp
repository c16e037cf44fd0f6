// Process groups and send/recv in Kineto profiles (kineto_groups.h, kineto_comms.h): the group's
// ranks read from "Process Group Ranks" (also truncated), a send/recv kernel under a
// record_param_comms naming its peer becomes a send/recv op with the peer as an offset in the
// group, and one without a peer or without the profile's rank stays fixed with a reason.
#include "models/workload/kineto_groups.h"

#include <gtest/gtest.h>

#include "models/workload/kineto_import.h"
#include "models/workload/trace_groups.h"
#include "sim/errors.h"

namespace t3sim::workload {
namespace {

nlohmann::json sendrecv_kernel(double ts, int external_id) {
  return {{"ph", "X"},
          {"cat", "kernel"},
          {"name", "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"},
          {"pid", 0},
          {"tid", 20},
          {"ts", ts},
          {"dur", 12.0},
          {"args", {{"External id", external_id}, {"stream", 20}}}};
}

nlohmann::json comms(int external_id, nlohmann::json args) {
  args["External id"] = external_id;
  return {{"ph", "X"},  {"cat", "cpu_op"}, {"name", "record_param_comms"},
          {"pid", 1},   {"tid", 1},        {"ts", 0.0},
          {"dur", 1.0}, {"args", args}};
}

nlohmann::json p2p_args(const std::string& name, const char* peer_key, int peer) {
  return {{"Collective name", name}, {"In msg nelems", 1024},
          {"Out msg nelems", 1024},  {"dtype", "Float"},
          {"Group size", 4},         {"Process Group Ranks", "[1, 3, 5, 7]"},
          {peer_key, peer}};
}

nlohmann::json profile(int rank, nlohmann::json events) {
  return {{"distributedInfo", {{"rank", rank}, {"world_size", 8}}}, {"traceEvents", events}};
}

TEST(KinetoGroups, ProcessGroupRanksReadAndTruncatedListsRebuilt) {
  const nlohmann::json plain = {{"Process Group Ranks", "[0, 2, 4, 6]"}};
  EXPECT_EQ(process_group_ranks(&plain, 4), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(process_group_ranks(&plain, 2), std::nullopt);  // size disagrees: not guessed
  const nlohmann::json array = {{"Process Group Ranks", {3, 1}}};
  EXPECT_EQ(process_group_ranks(&array, std::nullopt), (std::vector<int>{3, 1}));
  const nlohmann::json cut = {{"Process Group Ranks", "[1, 3, 5, ..., 63]"},
                              {"Global rank start", 1},
                              {"Global rank stride", 2}};
  const auto rebuilt = process_group_ranks(&cut, 32);
  ASSERT_TRUE(rebuilt);
  EXPECT_EQ(rebuilt->size(), 32u);
  EXPECT_EQ(rebuilt->back(), 63);
  const nlohmann::json wrong_tail = {{"Process Group Ranks", "[1, 3, 5, ..., 60]"}};
  EXPECT_EQ(process_group_ranks(&wrong_tail, 32), std::nullopt);
  const nlohmann::json repeated = {{"Process Group Ranks", "[0, 0]"}};
  EXPECT_EQ(process_group_ranks(&repeated, 2), std::nullopt);
}

TEST(KinetoGroups, DirectionFromCollectiveAndOpNames) {
  EXPECT_EQ(p2p_direction("send"), P2pDirection::kSend);
  EXPECT_EQ(p2p_direction("c10d::recv_"), P2pDirection::kRecv);
  EXPECT_EQ(p2p_direction("nccl:send"), P2pDirection::kSend);
  EXPECT_EQ(p2p_direction("sendrecv"), std::nullopt);
  EXPECT_EQ(p2p_direction("allreduce"), std::nullopt);
}

// Rank 3 of the group [1, 3, 5, 7] sends to rank 7 (two places on: peer 2) and receives from
// rank 1 (peer 3: 1 is three places on from 3, cyclically).
TEST(KinetoGroups, SendAndRecvBecomeOpsWithPeerOffsetsInTheirGroup) {
  const nlohmann::json p =
      profile(3, {comms(1, p2p_args("send", "Dst Rank", 7)), sendrecv_kernel(10, 1),
                  comms(2, p2p_args("recv", "Src Rank", 1)), sendrecv_kernel(30, 2)});
  const KinetoImport k = import_kineto_profile(p, "rank3.json");
  ASSERT_EQ(k.trace.ops.size(), 2u);
  const Op& send = k.trace.ops[0];
  EXPECT_EQ(send.kind, OpKind::kSend);
  EXPECT_EQ(send.bytes, 4096);
  EXPECT_EQ(send.tp_group, 4);
  EXPECT_EQ(send.peer, 2);
  EXPECT_EQ(k.trace.ops[1].kind, OpKind::kRecv);
  EXPECT_EQ(k.trace.ops[1].peer, 3);
  EXPECT_EQ(k.trace.metadata.rank, 3);
  // Both ops run on the one group [1, 3, 5, 7]: one row of the trace's table.
  EXPECT_EQ(k.trace.metadata.process_groups, (std::vector<std::vector<int>>{{1, 3, 5, 7}}));
  EXPECT_EQ(send.process_group, 0);
  EXPECT_EQ(k.trace.ops[1].process_group, 0);
  EXPECT_TRUE(k.summary.warnings.empty());
  EXPECT_EQ(parse_trace(to_json(k.trace), "again"), k.trace);
}

// The group-local "Rank" (what PyTorch < 2.4 records for a send's peer) maps through the group.
TEST(KinetoGroups, GroupLocalPeerRankMapsThroughTheGroup) {
  const nlohmann::json p =
      profile(1, {comms(1, p2p_args("send", "Rank", 2)), sendrecv_kernel(10, 1)});
  const KinetoImport k = import_kineto_profile(p, "rank1.json");
  ASSERT_EQ(k.trace.ops.size(), 1u);
  EXPECT_EQ(k.trace.ops[0].kind, OpKind::kSend);
  EXPECT_EQ(k.trace.ops[0].peer, 2);  // rank 1 is group rank 0; group rank 2 is rank 5
}

TEST(KinetoGroups, SendWithoutPeerOrRankStaysFixedWithAReason) {
  nlohmann::json args = p2p_args("send", "Dst Rank", 7);
  args.erase("Dst Rank");
  const KinetoImport no_peer =
      import_kineto_profile(profile(3, {comms(1, args), sendrecv_kernel(10, 1)}), "a.json");
  ASSERT_EQ(no_peer.trace.ops.size(), 1u);
  EXPECT_EQ(no_peer.trace.ops[0].kind, OpKind::kFixed);
  ASSERT_EQ(no_peer.summary.warnings.size(), 1u);
  EXPECT_NE(no_peer.summary.warnings[0].reason.find("without a peer rank"), std::string::npos);
  nlohmann::json anonymous = {
      {"traceEvents", {comms(1, p2p_args("send", "Dst Rank", 7)), sendrecv_kernel(10, 1)}}};
  const KinetoImport no_rank = import_kineto_profile(anonymous, "b.json");
  EXPECT_EQ(no_rank.trace.ops[0].kind, OpKind::kFixed);
  ASSERT_EQ(no_rank.summary.warnings.size(), 1u);
  EXPECT_NE(no_rank.summary.warnings[0].reason.find("distributedInfo.rank"), std::string::npos);
  EXPECT_THROW(import_kineto_profile(anonymous, "b.json", {.strict = true}), ConfigError);
}

// A collective keeps its group's ranks; without "Process Group Ranks" the world's group is every
// rank, and a narrower one is left unnamed.
TEST(KinetoGroups, CollectivesKeepTheirGroupsRanks) {
  const nlohmann::json ar = {{"Collective name", "allreduce"},
                             {"In msg nelems", 256},
                             {"Out msg nelems", 256},
                             {"dtype", "Float"},
                             {"Group size", 2},
                             {"Process Group Ranks", "[4, 5]"}};
  nlohmann::json world = ar;
  world["Group size"] = 8;
  world.erase("Process Group Ranks");
  nlohmann::json k1 = sendrecv_kernel(10, 1), k2 = sendrecv_kernel(40, 2);
  k1["name"] = k2["name"] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
  const KinetoImport k =
      import_kineto_profile(profile(5, {comms(1, ar), k1, comms(2, world), k2}), "c.json");
  ASSERT_EQ(k.trace.ops.size(), 2u);
  const std::vector<std::vector<int>> groups = trace_group_ranks(k.trace);
  EXPECT_EQ(groups[0], (std::vector<int>{4, 5}));
  EXPECT_EQ(groups[1], (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(k.trace.ops[0].tp_group, 2);
}

}  // namespace
}  // namespace t3sim::workload
