// Process groups in the t3sim trace format (trace_groups.h): metadata "rank" and
// "process_groups" and an op's "process_group" are written and read back exactly (in memory, as
// text, streamed from a file), a trace without them reads as before, and every inconsistency is
// one ConfigError naming the JSON pointer.
#include "models/workload/trace_groups.h"

#include <string>

#include <gtest/gtest.h>

#include "sim/errors.h"
#include "tests/models/workload/test_support.h"

namespace t3sim::workload {
namespace {

using testing::ScratchDir;

// Rank 2 of 8: an all-reduce on its TP group [2, 3], a send on its DP group [2, 6] (peer 1: to
// rank 6) and an all-reduce over every rank without a named group.
nlohmann::json rank2() {
  return nlohmann::json::parse(R"({"version": 1,
    "metadata": {"source": "kineto", "tp": 8, "rank": 2, "process_groups": [[2, 3], [2, 6]]},
    "ops": [
      {"id": "tp.ar", "kind": "all_reduce", "bytes": 4096, "dtype": "bf16", "stream": 1,
       "process_group": 0},
      {"id": "dp.send", "kind": "send", "bytes": 1024, "dtype": "bf16", "stream": 1,
       "tp_group": 2, "process_group": 1, "peer": 1},
      {"id": "world.ar", "kind": "all_reduce", "bytes": 4096, "dtype": "bf16", "stream": 1}]})");
}

ConfigError parse_error(nlohmann::json j) {
  try {
    parse_trace(j, "g.json");
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for " << j.dump();
  return ConfigError("", "", "");
}

bool says(const ConfigError& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

TEST(TraceGroups, ReadSizesOpsByTheirGroupAndRoundTrips) {
  const Trace t = parse_trace(rank2(), "g.json");
  EXPECT_EQ(t.metadata.rank, 2);
  ASSERT_EQ(t.metadata.process_groups.size(), 2u);
  EXPECT_EQ(t.ops[0].process_group, 0);
  EXPECT_EQ(t.ops[0].tp_group, 2);  // from its group, not metadata.tp
  EXPECT_EQ(t.ops[2].process_group, std::nullopt);
  EXPECT_EQ(t.ops[2].tp_group, 8);
  const std::vector<std::vector<int>> ranks = trace_group_ranks(t);
  EXPECT_EQ(ranks[1], (std::vector<int>{2, 6}));
  EXPECT_TRUE(ranks[2].empty());
  EXPECT_EQ(parse_trace(to_json(t), "again"), t);
  EXPECT_EQ(parse_trace(nlohmann::json::parse(format_trace(t)), "text"), t);
  const ScratchDir dir;
  write_trace(t, dir / "rank2.json");
  EXPECT_EQ(read_trace(dir / "rank2.json"), t);  // streamed: metadata before ops
}

TEST(TraceGroups, OldTracesWithoutGroupsReadUnchanged) {
  nlohmann::json j = rank2();
  j["metadata"].erase("rank");
  j["metadata"].erase("process_groups");
  j["ops"].erase(0);
  j["ops"].erase(0);
  const Trace t = parse_trace(j, "old.json");
  EXPECT_EQ(t.metadata.rank, std::nullopt);
  EXPECT_TRUE(t.metadata.process_groups.empty());
  EXPECT_TRUE(trace_group_ranks(t).empty());
  EXPECT_EQ(to_json(t)["metadata"].count("process_groups"), 0u);  // nothing new is written
}

TEST(TraceGroups, InterningKeepsOneRowPerGroup) {
  TraceMetadata m;
  EXPECT_EQ(intern_process_group(m, {0, 1}), 0);
  EXPECT_EQ(intern_process_group(m, {0, 4}), 1);
  EXPECT_EQ(intern_process_group(m, {0, 1}), 0);
  EXPECT_EQ(intern_process_group(m, {1, 0}), 2);  // group order matters: another communicator
  EXPECT_EQ(m.process_groups.size(), 3u);
}

TEST(TraceGroups, BadTablesAreRefusedWithTheirPointer) {
  nlohmann::json missing_rank = rank2();
  missing_rank["metadata"]["process_groups"][1] = {3, 6};
  const ConfigError not_member = parse_error(missing_rank);
  EXPECT_EQ(not_member.pointer(), "/metadata/process_groups/1");
  EXPECT_TRUE(says(not_member, "does not hold the trace's rank 2")) << not_member.what();
  nlohmann::json twice = rank2();
  twice["metadata"]["process_groups"][1] = {2, 2};
  EXPECT_TRUE(says(parse_error(twice), "names a rank twice"));
  nlohmann::json repeated = rank2();
  repeated["metadata"]["process_groups"][1] = {2, 3};
  EXPECT_TRUE(says(parse_error(repeated), "listed twice"));
  nlohmann::json empty = rank2();
  empty["metadata"]["process_groups"][1] = nlohmann::json::array();
  EXPECT_EQ(parse_error(empty).pointer(), "/metadata/process_groups/1");
  nlohmann::json negative = rank2();
  negative["metadata"]["process_groups"][1] = {2, -6};
  EXPECT_EQ(parse_error(negative).pointer(), "/metadata/process_groups/1/1");
}

TEST(TraceGroups, BadOpGroupsAreRefusedWithTheirPointer) {
  nlohmann::json out_of_range = rank2();
  out_of_range["ops"][0]["process_group"] = 2;
  EXPECT_EQ(parse_error(out_of_range).pointer(), "/ops/0/process_group");
  nlohmann::json wrong_size = rank2();
  wrong_size["ops"][0]["tp_group"] = 4;
  const ConfigError size = parse_error(wrong_size);
  EXPECT_EQ(size.pointer(), "/ops/0/tp_group");
  EXPECT_TRUE(says(size, "process group 0 holds 2 ranks")) << size.what();
  nlohmann::json on_gemm = rank2();
  on_gemm["ops"][2] = {
      {"id", "g"},       {"kind", "gemm"}, {"shape", {{"m", 1}, {"n", 1}, {"k", 1}}},
      {"dtype", "bf16"}, {"stream", 0},    {"process_group", 0}};
  EXPECT_EQ(parse_error(on_gemm).pointer(), "/ops/2/process_group");
  nlohmann::json no_table = rank2();
  no_table["metadata"].erase("process_groups");
  EXPECT_TRUE(says(parse_error(no_table), "\"process_groups\", which is missing"));
  // A trace built in memory is checked the same way (check_trace).
  Trace t = parse_trace(rank2(), "g.json");
  t.ops[0].process_group = 5;
  EXPECT_THROW(check_trace(t, "mem"), ConfigError);
  t = parse_trace(rank2(), "g.json");
  t.metadata.rank = 7;
  EXPECT_THROW(check_trace(t, "mem"), ConfigError);
}

}  // namespace
}  // namespace t3sim::workload
