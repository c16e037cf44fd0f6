// Chakra ET import: the bundled ASTRA-sim all-reduce microbenchmark (8 ranks), hand-built ETs
// for GEMMs, dependencies, unmodelled nodes and asymmetric ranks, and bad input (truncated
// records, missing framing, unknown comm types, dangling and cyclic deps, gzip files).
#include "models/workload/chakra_import.h"

#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "chakra_et.pb.h"
#include "models/workload/chakra_stream.h"
#include "sim/errors.h"
#include "tests/models/workload/test_support.h"

namespace t3sim::workload {
namespace {

using ChakraProtoMsg::Node;
using testing::samples_dir;
using testing::ScratchDir;

std::string varint(std::uint32_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

std::string record(const google::protobuf::Message& m) {
  const std::string body = m.SerializeAsString();
  return varint(static_cast<std::uint32_t>(body.size())) + body;
}

std::string et_bytes(const std::vector<Node>& nodes) {
  ChakraProtoMsg::GlobalMetadata meta;
  meta.set_version("0.0.4");
  std::string out = record(meta);
  for (const Node& n : nodes) out += record(n);
  return out;
}

std::filesystem::path write(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

void attr_int(Node& n, const std::string& name, std::int64_t v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}

Node collective(std::uint64_t id, std::int64_t comm_type, std::int64_t bytes) {
  Node n;
  n.set_id(id);
  n.set_name("coll");
  n.set_type(ChakraProtoMsg::COMM_COLL_NODE);
  attr_int(n, "comm_type", comm_type);
  attr_int(n, "comm_size", bytes);
  return n;
}

Node matmul(std::uint64_t id) {
  Node n;
  n.set_id(id);
  n.set_name("aten::mm");
  n.set_type(ChakraProtoMsg::COMP_NODE);
  n.set_duration_micros(120);
  n.mutable_inputs()->set_shapes("[[2048, 1024], [1024, 4096]]");
  n.mutable_inputs()->set_types("['Tensor(c10::BFloat16)', 'Tensor(c10::BFloat16)']");
  return n;
}

Node compute(std::uint64_t id, std::uint64_t duration) {
  Node n;
  n.set_id(id);
  n.set_name("aten::gelu");
  n.set_type(ChakraProtoMsg::COMP_NODE);
  n.set_duration_micros(duration);
  return n;
}

ChakraImport import_one(const std::vector<Node>& nodes, const ChakraImportOptions& options = {}) {
  const ScratchDir dir("workload_import_one");
  return import_chakra({write(dir / "t.0.et", et_bytes(nodes))}, options);
}

// The ConfigError message of importing `files`, or "" when it imports.
std::string error_of(const std::vector<std::filesystem::path>& files,
                     const ChakraImportOptions& options = {}) {
  try {
    import_chakra(files, options);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ChakraImport, AstraSimAllReduceMicrobenchmarkIsOneAllReduceOnEightRanks) {
  const auto prefix = samples_dir() / "chakra" / "all_reduce_8npus_1MB" / "all_reduce";
  const auto files = chakra_rank_files({prefix.string()});
  ASSERT_EQ(files.size(), 8u);
  EXPECT_EQ(files[7].filename(), "all_reduce.7.et");
  const ChakraImport imported = import_chakra(files);
  EXPECT_EQ(imported.trace.metadata.source, "chakra");
  EXPECT_EQ(imported.trace.metadata.tp, 8);
  ASSERT_EQ(imported.trace.ops.size(), 1u);
  const Op& op = imported.trace.ops[0];
  EXPECT_EQ(op.kind, OpKind::kAllReduce);
  EXPECT_EQ(op.bytes, 1 << 20);
  EXPECT_EQ(op.dtype, Dtype::kFp32);
  EXPECT_EQ(op.stream, kCommStream);
  EXPECT_TRUE(op.deps.empty());
  EXPECT_EQ(op.id, "n0.all_reduce");
  const ChakraSummary& s = imported.summary;
  EXPECT_EQ(s.version, "0.0.4");
  EXPECT_EQ(s.ranks, 8);
  EXPECT_TRUE(s.symmetric);  // the files differ only in the node id
  EXPECT_EQ(s.identical_files, 0);
  EXPECT_TRUE(s.warnings.empty());
  EXPECT_EQ(s.categories[static_cast<std::size_t>(ChakraCategory::kCollective)].ops, 1);
}

TEST(ChakraImport, OneRankFileStandsForTheGroupItIsGiven) {
  const auto file = samples_dir() / "chakra" / "all_reduce_8npus_1MB" / "all_reduce.0.et";
  ChakraImportOptions options;
  options.group = 8;
  const ChakraImport imported = import_chakra({file}, options);
  EXPECT_EQ(imported.trace.metadata.tp, 8);
  EXPECT_EQ(imported.summary.files, 1);
  EXPECT_NE(format_summary(imported.summary).find("1 of the 8 ranks' files given"),
            std::string::npos);
  EXPECT_EQ(import_chakra({file}).trace.metadata.tp, 1);
  options.group = 0;  // fewer ranks than files
  EXPECT_THROW(import_chakra({file}, options), UsageError);
}

TEST(ChakraImport, FilesGivenOutOfOrderAreSortedByRank) {
  const auto dir = samples_dir() / "chakra" / "all_reduce_8npus_1MB";
  const auto files =
      chakra_rank_files({(dir / "all_reduce.1.et").string(), (dir / "all_reduce.0.et").string()});
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].filename(), "all_reduce.0.et");
}

TEST(ChakraImport, GemmShapeDepsAndDependencyOrder) {
  // Listed consumer first: the all-gather waits (data) for the GEMM, and a fixed op waits
  // (control) for both.
  Node ag = collective(7, 2, 4096);
  ag.add_data_deps(3);
  Node tail = compute(9, 5);
  tail.add_ctrl_deps(7);
  tail.add_data_deps(3);
  tail.add_ctrl_deps(3);  // repeated: kept once
  const ChakraImport imported = import_one({ag, matmul(3), tail});
  const auto& ops = imported.trace.ops;
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].id, "n3.gemm");
  EXPECT_EQ(ops[0].shape, (GemmShape{2048, 4096, 1024}));
  EXPECT_EQ(ops[0].dtype, Dtype::kBf16);
  EXPECT_EQ(ops[0].measured_us, 120.0);
  EXPECT_EQ(ops[1].id, "n7.all_gather");
  EXPECT_EQ(ops[1].deps, std::vector<std::string>{"n3.gemm"});
  EXPECT_EQ(ops[2].id, "n9.fixed");
  EXPECT_EQ(ops[2].duration_us, 5.0);
  EXPECT_EQ(ops[2].deps, (std::vector<std::string>{"n3.gemm", "n7.all_gather"}));
}

TEST(ChakraImport, KernelOfAHostMatmulTakesItsShape) {
  // As chakra's PyTorch converter writes them: the aten op on the host (is_cpu_op) with the
  // operand shapes, and its GPU kernel with a ctrl dep on it.
  Node host;
  host.set_id(10);
  host.set_name("aten::addmm");
  host.set_type(ChakraProtoMsg::COMP_NODE);
  host.set_duration_micros(8);
  host.mutable_inputs()->set_shapes("[[4096], [2048, 1024], [1024, 4096]]");
  host.mutable_inputs()->set_types("['Tensor(float)', 'Tensor(float)', 'Tensor(float)']");
  auto* cpu = host.add_attr();
  cpu->set_name("is_cpu_op");
  cpu->set_bool_val(true);
  Node kernel;
  kernel.set_id(11);
  kernel.set_name("ampere_sgemm_128x64_tn_tf32");
  kernel.set_type(ChakraProtoMsg::COMP_NODE);
  kernel.set_duration_micros(95);
  kernel.add_ctrl_deps(10);
  const ChakraImport imported = import_one({host, kernel});
  const auto& ops = imported.trace.ops;
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].kind, OpKind::kFixed);
  EXPECT_EQ(ops[0].stream, 2);  // host
  EXPECT_EQ(ops[1].kind, OpKind::kGemm);
  EXPECT_EQ(ops[1].shape, (GemmShape{2048, 4096, 1024}));
  EXPECT_EQ(ops[1].dtype, Dtype::kTf32);  // FP32 operands on a TF32 kernel
  EXPECT_EQ(ops[1].stream, kComputeStream);
  EXPECT_EQ(ops[1].deps, std::vector<std::string>{"n10.fixed"});
  EXPECT_EQ(ops[1].name, "aten::addmm: ampere_sgemm_128x64_tn_tf32");
  EXPECT_TRUE(imported.summary.warnings.empty());
}

TEST(ChakraImport, UnmodelledNodesAreCountedWarningsOrStrictErrors) {
  const std::vector<Node> nodes = {compute(1, 30), compute(2, 12), collective(3, 3, 64)};
  const ChakraImport imported = import_one(nodes);
  const ChakraSummary& s = imported.summary;
  ASSERT_EQ(s.warnings.size(), 2u);
  EXPECT_EQ(s.warnings[0].count, 2);
  EXPECT_DOUBLE_EQ(s.warnings[0].gpu_us, 42.0);
  EXPECT_NE(s.warnings[1].reason.find("GATHER"), std::string::npos);
  EXPECT_EQ(imported.trace.ops[2].kind, OpKind::kFixed);
  const auto lines = format_warnings(s, "t.0.et");
  EXPECT_NE(lines[0].find("2 nodes (42.0 us)"), std::string::npos) << lines[0];

  ChakraImportOptions strict;
  strict.strict = true;
  try {
    import_one(nodes, strict);
    FAIL() << "strict import accepted a compute node without a GEMM shape";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/records/1/inputs");
    EXPECT_NE(e.message().find("--strict"), std::string::npos);
  }
}

TEST(ChakraImport, UnknownCommTypeNamesTheNodeAndField) {
  const ScratchDir dir;
  const auto path = write(dir / "bad.0.et", et_bytes({collective(4, 42, 64)}));
  const std::string error = error_of({path});
  EXPECT_NE(error.find("/records/1/attr/comm_type"), std::string::npos) << error;
  EXPECT_NE(error.find("node 4"), std::string::npos) << error;
}

TEST(ChakraImport, TruncatedAndUnframedFilesAreRefused) {
  const ScratchDir dir;
  const std::string good = et_bytes({collective(0, 0, 1024)});
  const std::string truncated = good.substr(0, good.size() - 3);
  std::string error = error_of({write(dir / "cut.0.et", truncated)});
  EXPECT_NE(error.find("/records/1: record at byte"), std::string::npos) << error;
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  // A bare Node with no length prefix: its first byte is read as a length.
  error = error_of({write(dir / "bare.0.et", collective(0, 0, 1024).SerializeAsString())});
  EXPECT_NE(error.find("varint-length-prefixed"), std::string::npos) << error;
  Node latin1 = collective(0, 0, 1024);
  latin1.set_name("caf\xe9");  // serialises (with a log line), but proto3 strings must be UTF-8
  error = error_of({write(dir / "utf8.0.et", et_bytes({latin1}))});
  EXPECT_NE(error.find("/records/1: record at byte 8"), std::string::npos) << error;
  error = error_of({write(dir / "empty.0.et", "")});
  EXPECT_NE(error.find("empty"), std::string::npos) << error;
  error = error_of({write(dir / "gz.0.et", std::string("\x1f\x8b\x08\x00", 4))});
  EXPECT_NE(error.find("gunzip"), std::string::npos) << error;
}

TEST(ChakraImport, NodeCountIsBounded) {
  // Empty records are valid (all-default) nodes: one more than the limit is refused.
  const std::string bytes = et_bytes({}) + std::string(kMaxChakraNodes + 1, '\0');
  try {
    parse_chakra_records(bytes, "many.0.et");
    FAIL() << "a file of more than kMaxChakraNodes nodes was read";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), fmt::format("/records/{}", kMaxChakraNodes + 1));
  }
}

TEST(ChakraImport, DanglingDepsAreDroppedAndCountedOrRefusedUnderStrict) {
  Node a = compute(1, 1);
  a.add_data_deps(99);
  a.add_ctrl_deps(98);
  const ScratchDir dir;
  const auto path = write(dir / "d.0.et", et_bytes({a}));
  const ChakraImport lenient = import_chakra({path});
  ASSERT_EQ(lenient.trace.ops.size(), 1u);
  EXPECT_TRUE(lenient.trace.ops[0].deps.empty());  // kept, without the deps it cannot have
  EXPECT_EQ(lenient.summary.dropped_deps, 2);
  const std::vector<std::string> lines = format_warnings(lenient.summary, path.string());
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("2 dependencies on nodes not in the file dropped"), std::string::npos)
      << lines.back();
  EXPECT_NE(lines.back().find("/records/1/data_deps/0"), std::string::npos) << lines.back();
  ChakraImportOptions strict;
  strict.strict = true;
  const std::string error = error_of({path}, strict);
  EXPECT_NE(error.find("/records/1/data_deps/0"), std::string::npos) << error;
  EXPECT_NE(error.find("--strict"), std::string::npos) << error;
}

TEST(ChakraImport, CyclicDepsAreRefused) {
  const ScratchDir dir;
  std::string error;
  Node b = compute(1, 1);
  b.add_ctrl_deps(2);
  Node c = compute(2, 1);
  c.add_data_deps(1);
  error = error_of({write(dir / "c.0.et", et_bytes({b, c}))});
  EXPECT_NE(error.find("cycle"), std::string::npos) << error;
}

TEST(ChakraImport, RanksWithDifferentProgramsNeedAChosenRank) {
  const ScratchDir dir;
  const auto r0 = write(dir / "p.0.et", et_bytes({collective(0, 0, 1024)}));
  const auto r1 = write(dir / "p.1.et", et_bytes({collective(5, 0, 2048)}));
  const std::string error = error_of({r0, r1});
  EXPECT_NE(error.find("--rank"), std::string::npos) << error;
  ChakraImportOptions chosen;
  chosen.rank = 1;
  const ChakraImport imported = import_chakra({r0, r1}, chosen);
  EXPECT_FALSE(imported.summary.symmetric);
  EXPECT_EQ(imported.trace.ops.at(0).bytes, 2048);
  // Same program under other ids and names: symmetric, not byte-identical.
  Node renamed = collective(11, 0, 1024);
  renamed.set_name("rank 1");
  const auto r1b = write(dir / "q.1.et", et_bytes({renamed}));
  const ChakraImport same = import_chakra({r0, r1b});
  EXPECT_TRUE(same.summary.symmetric);
  EXPECT_EQ(same.summary.identical_files, 0);
}

TEST(ChakraImport, DeeplyNestedShapesAreAOneLineError) {
  // 100000 levels of list in inputs.shapes: once a stack overflow when the error message dumped it.
  Node deep = matmul(1);
  deep.mutable_inputs()->set_shapes(std::string(100000, '[') + std::string(100000, ']'));
  const ScratchDir dir;
  const auto path = write(dir / "deep.0.et", et_bytes({deep}));
  try {
    import_chakra({path});
    FAIL() << "a 100000-deep inputs.shapes was imported";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), path.string());
    EXPECT_TRUE(e.pointer().starts_with("/records/1/inputs/shapes/0/0")) << e.pointer();
    EXPECT_NE(e.message().find("nested deeper than"), std::string::npos) << e.message();
  }
}

TEST(ChakraImport, RepeatedDepsOnManyNodesAreKeptOnceInFirstOrder) {
  constexpr std::uint64_t kNodes = 20000;
  std::vector<Node> nodes;
  Node sink = compute(kNodes, 1);
  for (std::uint64_t id = 0; id < kNodes; ++id) {
    nodes.push_back(compute(id, 1));
    sink.add_data_deps(kNodes - 1 - id);
  }
  for (std::uint64_t id = 0; id < kNodes; ++id) sink.add_ctrl_deps(id);  // all repeats
  nodes.push_back(sink);
  const ChakraImport imported = import_one(nodes);
  const std::vector<std::string>& deps = imported.trace.ops.back().deps;
  ASSERT_EQ(deps.size(), kNodes);
  EXPECT_EQ(deps.front(), fmt::format("n{}.fixed", kNodes - 1));
  EXPECT_EQ(deps.back(), "n0.fixed");
}

// The ConfigError of chakra_rank_files(args), or "" when it returns.
std::string rank_files_error(const std::vector<std::string>& args) {
  try {
    chakra_rank_files(args);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ChakraImport, RanksWithAGapAreRefused) {
  const ScratchDir dir;
  for (const int r : {0, 1, 3}) write(dir / fmt::format("p.{}.et", r), et_bytes({compute(1, 1)}));
  write(dir / "pq.7.et", "");  // another prefix's file is no gap of p
  const std::string prefix = (dir / "p").string();
  const std::string error = rank_files_error({prefix});
  EXPECT_NE(error.find(prefix + ".2.et"), std::string::npos) << error;
  EXPECT_NE(error.find(prefix + ".3.et exists"), std::string::npos) << error;
  const std::string given = rank_files_error(
      {prefix + ".0.et", prefix + ".3.et", prefix + ".1.et"});  // numbered one by one
  EXPECT_NE(given.find("rank 2's file is missing"), std::string::npos) << given;
  EXPECT_NE(given.find(prefix + ".3.et"), std::string::npos) << given;
  EXPECT_EQ(chakra_rank_files({(dir / "pq").string() + ".7.et"}).size(), 1u);  // one file alone
  std::filesystem::remove(dir / "p.3.et");
  EXPECT_EQ(chakra_rank_files({prefix}).size(), 2u);
}

}  // namespace
}  // namespace t3sim::workload
