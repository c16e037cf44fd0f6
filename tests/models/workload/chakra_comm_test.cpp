// Chakra ET import of communication: every comm_type that NCCL runs becomes its trace kind (a
// barrier an all-reduce of one element; gather/scatter stay fixed and counted), COMM_SEND /
// COMM_RECV become send / recv to a peer offset (so a ring is the same program on every rank),
// ASTRA-sim's microbenchmarks and custom-collective ETs import as their collective, and JSON
// files and host-only ETs are recognised with what to run instead.
#include <fstream>

#include <gtest/gtest.h>

#include "chakra_et.pb.h"
#include "models/workload/chakra_import.h"
#include "sim/errors.h"
#include "tests/models/workload/test_support.h"

namespace t3sim::workload {
namespace {

using ChakraProtoMsg::Node;
using testing::samples_dir;
using testing::ScratchDir;

std::string record(const google::protobuf::Message& m) {
  const std::string body = m.SerializeAsString();
  std::string out;
  for (auto v = static_cast<std::uint32_t>(body.size()); true; v >>= 7) {
    out.push_back(static_cast<char>(v >= 0x80 ? (v & 0x7f) | 0x80 : v));
    if (v < 0x80) break;
  }
  return out + body;
}

std::filesystem::path write_et(const std::filesystem::path& path, const std::vector<Node>& nodes) {
  ChakraProtoMsg::GlobalMetadata meta;
  meta.set_version("0.0.4");
  std::string bytes = record(meta);
  for (const Node& n : nodes) bytes += record(n);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

Node comm(std::uint64_t id, ChakraProtoMsg::NodeType type,
          std::vector<std::pair<std::string, std::int64_t>> attrs) {
  Node n;
  n.set_id(id);
  n.set_name("comm");
  n.set_type(type);
  n.set_duration_micros(9);
  for (const auto& [name, value] : attrs) {
    auto* a = n.add_attr();
    a->set_name(name);
    a->set_int64_val(value);
  }
  return n;
}

ChakraImportOptions group_of(int ranks, bool strict = false) {
  ChakraImportOptions o;
  o.group = ranks;
  o.strict = strict;
  return o;
}

std::string error_of(const std::filesystem::path& file) {
  try {
    import_chakra({file});
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ChakraComm, EveryNcclCollectiveTypeBecomesItsKind) {
  const ScratchDir dir;
  std::vector<Node> nodes;
  for (std::int64_t type = 0; type < 10; ++type) {
    nodes.push_back(comm(static_cast<std::uint64_t>(type), ChakraProtoMsg::COMM_COLL_NODE,
                         {{"comm_type", type}, {"comm_size", 4096}}));
  }
  const ChakraImport imported = import_chakra({write_et(dir / "c.0.et", nodes)}, group_of(8));
  std::vector<OpKind> kinds;
  for (const Op& op : imported.trace.ops) kinds.push_back(op.kind);
  const std::vector<OpKind> want = {
      OpKind::kAllReduce,     OpKind::kReduce,    OpKind::kAllGather, OpKind::kFixed,
      OpKind::kFixed,         OpKind::kBroadcast, OpKind::kAllToAll,  OpKind::kReduceScatter,
      OpKind::kReduceScatter, OpKind::kAllReduce};
  EXPECT_EQ(kinds, want);
  EXPECT_EQ(imported.trace.ops[9].bytes, 4);  // a barrier: one fp32 element
  EXPECT_EQ(imported.trace.ops[6].bytes, 4096);
  const ChakraSummary& s = imported.summary;
  ASSERT_EQ(s.warnings.size(), 2u);  // gather, scatter
  EXPECT_NE(s.warnings[0].reason.find("GATHER"), std::string::npos);
  EXPECT_NE(format_summary(s).find("communication not simulated: 2 ops, 18.0 us"),
            std::string::npos)
      << format_summary(s);
  EXPECT_THROW(import_chakra({dir / "c.0.et"}, group_of(8, true)), ConfigError);
}

// A ring: rank r sends to r + 1 and then receives from r - 1. Absolute peers differ per rank;
// as offsets (send +1, recv +7) every rank runs the same program.
TEST(ChakraComm, SendRecvRingIsOneProgramOfPeerOffsets) {
  const ScratchDir dir;
  std::vector<std::filesystem::path> files;
  for (int r = 0; r < 8; ++r) {
    Node send = comm(0, ChakraProtoMsg::COMM_SEND_NODE,
                     {{"comm_size", 131072}, {"comm_dst", (r + 1) % 8}, {"comm_tag", 0}});
    Node recv = comm(1, ChakraProtoMsg::COMM_RECV_NODE,
                     {{"comm_size", 131072}, {"comm_src", (r + 7) % 8}, {"comm_tag", 0}});
    recv.add_data_deps(0);
    files.push_back(write_et(dir / ("ring." + std::to_string(r) + ".et"), {send, recv}));
  }
  const ChakraImport imported = import_chakra(files);
  EXPECT_TRUE(imported.summary.symmetric);
  ASSERT_EQ(imported.trace.ops.size(), 2u);
  const Op& send = imported.trace.ops[0];
  const Op& recv = imported.trace.ops[1];
  EXPECT_EQ(send.kind, OpKind::kSend);
  EXPECT_EQ(send.peer, 1);
  EXPECT_EQ(send.bytes, 131072);
  EXPECT_EQ(send.stream, kCommStream);
  EXPECT_EQ(recv.kind, OpKind::kRecv);
  EXPECT_EQ(recv.peer, 7);
  EXPECT_EQ(recv.deps, std::vector<std::string>{send.id});
  EXPECT_EQ(
      imported.summary.categories[static_cast<std::size_t>(ChakraCategory::kPointToPoint)].ops, 2);
  // Without a peer the node stays fixed, counted as communication not simulated.
  const auto bad =
      write_et(dir / "nopeer.0.et", {comm(0, ChakraProtoMsg::COMM_SEND_NODE, {{"comm_size", 64}})});
  const ChakraImport lenient = import_chakra({bad}, group_of(8));
  EXPECT_EQ(lenient.trace.ops[0].kind, OpKind::kFixed);
  EXPECT_NE(format_summary(lenient.summary).find("communication not simulated: 1 ops"),
            std::string::npos);
}

TEST(ChakraComm, AstraSimMicrobenchmarksImportAsTheirCollective) {
  const std::vector<std::pair<std::string, OpKind>> samples = {
      {"all_to_all", OpKind::kAllToAll},
      {"all_gather", OpKind::kAllGather},
      {"reduce_scatter", OpKind::kReduceScatter}};
  for (const auto& [name, kind] : samples) {
    const auto prefix = samples_dir() / "chakra" / (name + "_8npus_1MB") / name;
    const ChakraImport imported = import_chakra(chakra_rank_files({prefix.string()}));
    ASSERT_EQ(imported.trace.ops.size(), 1u) << name;
    EXPECT_EQ(imported.trace.ops[0].kind, kind) << name;
    EXPECT_EQ(imported.trace.ops[0].bytes, 1 << 20) << name;
    EXPECT_EQ(imported.trace.metadata.tp, 8) << name;
    EXPECT_TRUE(imported.summary.warnings.empty()) << name;
  }
}

// ASTRA-sim's custom ring all-reduce: 8 chunks of 128 KiB moved by 14 sends and 14 recvs per rank.
TEST(ChakraComm, CustomCollectiveImportsAsTheCollectiveItImplements) {
  const auto prefix =
      samples_dir() / "chakra" / "custom_ring_allreduce_8npus_1MB" / "custom_allreduce";
  const ChakraImport imported = import_chakra(chakra_rank_files({prefix.string()}));
  ASSERT_EQ(imported.trace.ops.size(), 1u);
  const Op& op = imported.trace.ops[0];
  EXPECT_EQ(op.kind, OpKind::kAllReduce);
  EXPECT_EQ(op.bytes, 8 * 131072);
  EXPECT_EQ(imported.trace.metadata.tp, 8);
  const std::string summary = format_summary(imported.summary);
  EXPECT_NE(summary.find("allreduce_ring_1channelsperring"), std::string::npos) << summary;
  EXPECT_NE(summary.find("35 nodes"), std::string::npos) << summary;
}

TEST(ChakraComm, JsonFilesSayWhatToRunInstead) {
  const ScratchDir dir;
  const auto kineto = dir / "k.0.et";
  std::ofstream(kineto) << R"({"schemaVersion": 1, "traceEvents": []})";
  std::string e = error_of(kineto);
  EXPECT_NE(e.find("import-kineto"), std::string::npos) << e;
  const auto host = dir / "h.0.et";
  std::ofstream(host) << R"({"schema": "1.0.1", "pid": 7, "nodes": [{"id": 1}]})";
  e = error_of(host);
  EXPECT_NE(e.find("chakra_trace_link"), std::string::npos) << e;
  EXPECT_EQ(e.find("truncated"), std::string::npos) << e;
  const auto other = dir / "j.0.et";
  std::ofstream(other) << "  [1, 2]";
  e = error_of(other);
  EXPECT_NE(e.find("JSON, not a Chakra ET"), std::string::npos) << e;
}

TEST(ChakraComm, HostOnlyTraceSaysToLinkItFirst) {
  const ScratchDir dir;
  Node host;
  host.set_id(1);
  host.set_name("aten::mm");
  host.set_type(ChakraProtoMsg::COMP_NODE);
  auto* cpu = host.add_attr();
  cpu->set_name("is_cpu_op");
  cpu->set_bool_val(true);
  const ChakraImport imported = import_chakra({write_et(dir / "h.0.et", {host})});
  const auto lines = format_warnings(imported.summary, "h.0.et");
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("chakra_trace_link"), std::string::npos) << lines.back();
}

}  // namespace
}  // namespace t3sim::workload
