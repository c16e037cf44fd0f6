// Kineto profiles of several ranks replayed as one run (replay_ranks.h with the groups the
// import keeps, kineto_import.h): a send in rank 0's profile is matched with the recv in rank
// 1's and replayed as a transfer; TP groups of 2 inside a node and DP groups of 4 across the two
// nodes each run on their own GPUs; a send without its recv is counted in a warning, or refused
// under strict.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "models/system/replay_ranks.h"
#include "models/workload/kineto_import.h"
#include "models/workload/trace_groups.h"
#include "sim/errors.h"
#include "tests/models/system/small_systems.h"
#include "tests/support/scratch_dir.h"

namespace t3sim::system {
namespace {

using workload::OpKind;

// One rank's profile under construction: kernels linked to their record_param_comms by External
// id, one stream for compute and one for NCCL.
struct Profile {
  explicit Profile(int rank, int world) {
    json["distributedInfo"] = {{"rank", rank}, {"world_size", world}};
    json["traceEvents"] = nlohmann::json::array();
  }
  void compute(double ts, double dur) { add_kernel("elementwise_kernel", ts, dur, 7, next_id_++); }
  void comm(double ts, nlohmann::json args, const std::string& kernel) {
    args["External id"] = next_id_;
    args["In msg nelems"] = args.value("In msg nelems", 65536);
    args["Out msg nelems"] = args["In msg nelems"];
    args["dtype"] = "Float";
    json["traceEvents"].push_back({{"ph", "X"},
                                   {"cat", "cpu_op"},
                                   {"name", "record_param_comms"},
                                   {"pid", 1},
                                   {"tid", 1},
                                   {"ts", ts},
                                   {"dur", 1.0},
                                   {"args", args}});
    add_kernel(kernel, ts, 20.0, 20, next_id_++);
  }
  void add_kernel(const std::string& name, double ts, double dur, int stream, int id) {
    json["traceEvents"].push_back({{"ph", "X"},
                                   {"cat", "kernel"},
                                   {"name", name},
                                   {"pid", 0},
                                   {"tid", stream},
                                   {"ts", ts},
                                   {"dur", dur},
                                   {"args", {{"External id", id}, {"stream", stream}}}});
  }
  nlohmann::json json;

 private:
  int next_id_ = 1;
};

nlohmann::json p2p(const std::string& name, int peer, const std::string& ranks, int size) {
  return {{"Collective name", name},
          {name == "send" ? "Dst Rank" : "Src Rank", peer},
          {"Group size", size},
          {"Process Group Ranks", ranks}};
}

nlohmann::json all_reduce(const std::string& ranks, int size) {
  return {{"Collective name", "allreduce"}, {"Group size", size}, {"Process Group Ranks", ranks}};
}

struct Imported {
  std::vector<workload::Trace> traces;
  std::vector<std::string> files;
};

Imported import_all(const std::vector<Profile>& profiles, bool strict = false) {
  Imported out;
  for (size_t r = 0; r < profiles.size(); ++r) {
    out.files.push_back("rank" + std::to_string(r) + ".pt.trace.json");
    workload::KinetoImport k =
        workload::import_kineto_profile(profiles[r].json, out.files.back(), {.strict = strict});
    out.traces.push_back(std::move(k.trace));
  }
  return out;
}

ConfigDoc gpus(int n) {
  ConfigDoc doc = testing::ring8();
  doc.root["gpus"] = n;
  return doc;
}

const ReplayOp& op_of(const MultiRankReplay& m, int rank, OpKind kind, int nth = 0) {
  for (const ReplayOp& op : m.ranks[static_cast<size_t>(rank)].result.ops) {
    if (op.kind == kind && nth-- == 0) return op;
  }
  throw std::runtime_error("no such op");
}

// Rank 0 computes 50 us and sends 256 KiB to rank 1, which posts its recv at once: the recv waits
// for the late send and ends when the data has arrived; the pair is matched, not dropped.
TEST(KinetoRanksReplay, SendAndRecvInTwoRankProfilesAreMatchedAsATransfer) {
  std::vector<Profile> p{Profile(0, 2), Profile(1, 2)};
  p[0].compute(0, 50);
  p[0].comm(50, p2p("send", 1, "[0, 1]", 2), "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage)");
  p[1].comm(0, p2p("recv", 0, "[0, 1]", 2), "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage)");
  const Imported in = import_all(p);
  ASSERT_EQ(in.traces[0].ops.back().kind, OpKind::kSend);
  ASSERT_EQ(in.traces[1].ops.back().kind, OpKind::kRecv);
  const MultiRankReplay m = replay_ranks(gpus(2), in.traces, in.files);
  EXPECT_EQ(m.matched_p2p, 1u);
  EXPECT_EQ(m.unmatched_p2p, 0u);
  EXPECT_TRUE(m.warnings.empty());
  const ReplayOp& send = op_of(m, 0, OpKind::kSend);
  const ReplayOp& recv = op_of(m, 1, OpKind::kRecv);
  EXPECT_GT(send.duration_us, 0.5);  // simulated, not the profile's 20 us
  EXPECT_NE(send.duration_us, 20.0);
  EXPECT_DOUBLE_EQ(recv.end_us(), send.end_us());
  EXPECT_NEAR(recv.wait_us, send.start_us - recv.start_us, 1e-9);
  EXPECT_NE(recv.model.find("rank 0"), std::string::npos);
}

// 8 ranks on two nodes of four: each all-reduces 256 KiB in its TP group of 2 (inside a node),
// then in its DP group of 4 (across both nodes). 4 + 2 collectives, each on its own GPUs; the
// DP all-reduce crosses the 25 GB/s NICs and takes longer than the TP one on NVLink.
TEST(KinetoRanksReplay, TpAndDpGroupsOfDifferentSizesMapOntoTheirGpus) {
  std::vector<Profile> p;
  for (int r = 0; r < 8; ++r) {
    p.emplace_back(r, 8);
    const int tp0 = r / 2 * 2;
    p.back().comm(0, all_reduce(fmt::format("[{}, {}]", tp0, tp0 + 1), 2),
                  "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    const int dp0 = r % 2;
    p.back().comm(100,
                  all_reduce(fmt::format("[{}, {}, {}, {}]", dp0, dp0 + 2, dp0 + 4, dp0 + 6), 4),
                  "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  }
  const Imported in = import_all(p);
  const MultiRankReplay m = replay_ranks(testing::two_nodes(), in.traces, in.files);
  EXPECT_EQ(m.collectives, 6u);
  const ReplayOp& tp = op_of(m, 5, OpKind::kAllReduce, 0);
  const ReplayOp& dp = op_of(m, 5, OpKind::kAllReduce, 1);
  EXPECT_NE(tp.model.find("GPUs [4, 5]"), std::string::npos) << tp.model;
  EXPECT_NE(dp.model.find("GPUs [1, 3, 5, 7]"), std::string::npos) << dp.model;
  EXPECT_GT(dp.duration_us, tp.duration_us);
  // Members of one group end together; different groups of one size take the same time.
  EXPECT_DOUBLE_EQ(op_of(m, 4, OpKind::kAllReduce, 0).end_us(), tp.end_us());
  EXPECT_DOUBLE_EQ(op_of(m, 0, OpKind::kAllReduce, 1).duration_us, dp.duration_us);
  // Without the ranks' groups the same traces cannot be placed: tp_group 2 on 8 GPUs.
  std::vector<workload::Trace> anonymous = in.traces;
  for (workload::Trace& t : anonymous) {
    t.metadata.process_groups.clear();
    for (workload::Op& op : t.ops) op.process_group.reset();
  }
  EXPECT_THROW(replay_ranks(testing::two_nodes(), anonymous, in.files), ConfigError);
}

// The replay's numbers without its run time (wall_s).
nlohmann::ordered_json numbers(const MultiRankReplay& m) {
  nlohmann::ordered_json j = to_json(m);
  j.erase("wall_s");
  return j;
}

// Import -> save -> load keeps each rank's process groups, so replaying the saved traces is the
// same run as replaying the import: 8 ranks on two nodes, TP groups of 2 and DP groups of 4
// all-reducing, and a send/recv inside each TP group.
TEST(KinetoRanksReplay, SavedTracesKeepTheirGroupsAndReplayTheSame) {
  std::vector<Profile> p;
  for (int r = 0; r < 8; ++r) {
    p.emplace_back(r, 8);
    const int tp0 = r / 2 * 2;
    const std::string tp = fmt::format("[{}, {}]", tp0, tp0 + 1);
    p.back().comm(0, all_reduce(tp, 2), "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    const int dp0 = r % 2;
    p.back().comm(100,
                  all_reduce(fmt::format("[{}, {}, {}, {}]", dp0, dp0 + 2, dp0 + 4, dp0 + 6), 4),
                  "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    const bool sends = r % 2 == 0;
    p.back().comm(300, p2p(sends ? "send" : "recv", sends ? r + 1 : r - 1, tp, 2),
                  "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage)");
  }
  const Imported in = import_all(p);
  const t3sim::testing::ScratchDir dir("kineto_ranks");
  std::vector<workload::Trace> loaded;
  for (size_t r = 0; r < in.traces.size(); ++r) {
    const auto path = dir / fmt::format("rank{}.json", r);
    workload::write_trace(in.traces[r], path);
    loaded.push_back(workload::read_trace(path));
    EXPECT_EQ(loaded.back(), in.traces[r]) << "rank " << r;
    EXPECT_EQ(workload::trace_group_ranks(loaded.back()),
              workload::trace_group_ranks(in.traces[r]));
  }
  EXPECT_EQ(loaded[5].metadata.rank, 5);
  EXPECT_EQ(loaded[5].metadata.process_groups,
            (std::vector<std::vector<int>>{{4, 5}, {1, 3, 5, 7}}));
  const MultiRankReplay imported = replay_ranks(testing::two_nodes(), in.traces, in.files);
  const MultiRankReplay saved = replay_ranks(testing::two_nodes(), loaded, in.files);
  EXPECT_EQ(imported.collectives, 6u);
  EXPECT_EQ(imported.matched_p2p, 4u);
  EXPECT_EQ(numbers(saved), numbers(imported));
  EXPECT_GT(saved.total_us, 0.0);
}

// Rank 0 sends to rank 1, which never receives: replayed as its own transfer and counted in one
// warning; under strict the run is refused, naming the send.
TEST(KinetoRanksReplay, UnmatchedSendIsCountedOrRefusedUnderStrict) {
  std::vector<Profile> p{Profile(0, 2), Profile(1, 2)};
  p[0].comm(0, p2p("send", 1, "[0, 1]", 2), "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage)");
  p[1].compute(0, 10);
  const Imported in = import_all(p);
  const MultiRankReplay m = replay_ranks(gpus(2), in.traces, in.files);
  EXPECT_EQ(m.unmatched_p2p, 1u);
  EXPECT_EQ(m.matched_p2p, 0u);
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("1 sends or recvs have no partner"), std::string::npos)
      << m.warnings[0];
  EXPECT_GT(op_of(m, 0, OpKind::kSend).duration_us, 0.5);
  ReplayOptions strict;
  strict.strict = true;
  try {
    replay_ranks(gpus(2), in.traces, in.files, strict);
    FAIL() << "an unmatched send under strict must be refused";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("no matching recv"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank0.pt.trace.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace t3sim::system
