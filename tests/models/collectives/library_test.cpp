// Binding of the "collectives" object: NCCL geometry derived from the defaults, strictness, and
// protocol auto-selection.
#include <gtest/gtest.h>

#include "models/collectives/library.h"

#include "models/collectives/algorithms.h"
#include "sim/errors.h"
#include "test_machine.h"

namespace t3sim::collectives {
namespace {

using testing::library;

TEST(Library, DefaultsFollowNcclGeometry) {
  const LibraryConfig c = library();
  const ProtocolSpec& s = c.spec(Protocol::kSimple);
  EXPECT_EQ(s.step_payload.count(), 512u * 1024);  // 4 MiB / NCCL_STEPS
  EXPECT_EQ(s.chunk.count(), 2u * 1024 * 1024);    // CHUNKSTEPS 4
  EXPECT_EQ(s.slices_per_chunk, 2u);               // SLICESTEPS 2
  EXPECT_EQ(s.slots, 4u);                          // 8 steps / 2 per slice
  EXPECT_TRUE(s.fenced);
  const ProtocolSpec& ll = c.spec(Protocol::kLL);
  EXPECT_EQ(ll.chunk.count(), 32u * 1024);  // 64 KiB step, half is payload
  EXPECT_EQ(ll.slots, 8u);
  EXPECT_EQ(ll.line_bytes(4096), 8192u);  // flags are stored with the data
  EXPECT_FALSE(ll.fenced);
  const ProtocolSpec& l128 = c.spec(Protocol::kLL128);
  EXPECT_EQ(l128.chunk.count() % 4096, 0u);
  EXPECT_NEAR(static_cast<double>(l128.chunk.count()), 614400.0 * 15 / 16, 4096);
  EXPECT_EQ(l128.line_bytes(120 * 1024), 128u * 1024);
  // Link packet headers add to the wire bytes only.
  const LibraryConfig half = library({{"link_efficiency", 0.5}});
  EXPECT_EQ(half.spec(Protocol::kSimple).line_bytes(1000), 1000u);
  EXPECT_EQ(half.spec(Protocol::kSimple).wire_bytes(1000), 2000u);
  EXPECT_EQ(half.spec(Protocol::kLL).wire_bytes(1000), 4000u);
}

TEST(Library, AutoProtocolBySize) {
  const LibraryConfig c = library({{"ll_max", "64 KiB"}, {"ll128_max", "4 MiB"}});
  EXPECT_EQ(c.select(Protocol::kAuto, 64 * 1024, false), Protocol::kLL);
  EXPECT_EQ(c.select(Protocol::kAuto, 1 << 20, false), Protocol::kLL128);
  EXPECT_EQ(c.select(Protocol::kAuto, 1 << 20, true), Protocol::kSimple);  // LL128: NVLink only
  EXPECT_EQ(c.select(Protocol::kAuto, 8 << 20, false), Protocol::kSimple);
  EXPECT_EQ(c.select(Protocol::kLL, 8 << 20, false), Protocol::kLL);
}

TEST(Library, StrictBinding) {
  EXPECT_THROW(library({{"chanels", 4}}), ConfigError);
  EXPECT_THROW(library({{"protocol", "fast"}}), ConfigError);
  EXPECT_THROW(library({{"simple_step_latency", 3}}), ConfigError);  // bare number
  EXPECT_THROW(library({{"simple_slice_steps", 3}}), ConfigError);   // does not divide 4
  EXPECT_THROW(library({{"ll_buffer", "16 KiB"}}), ConfigError);     // < 4 KiB payload per step
  const LibraryConfig c = library({{"gpus_per_node", 8}, {"executor", "dma"}});
  EXPECT_EQ(c.node_of(15), 1);
  EXPECT_EQ(c.executor, Executor::kDma);
}

TEST(Library, Spellings) {
  EXPECT_EQ(parse_algo("hierarchical", "x"), Algo::kHierarchical);
  EXPECT_STREQ(to_string(Protocol::kLL128), "ll128");
  EXPECT_STREQ(to_string(Kind::kReduceScatter), "reduce_scatter");
  EXPECT_THROW(parse_executor("gpu", "x"), ConfigError);
}

}  // namespace
}  // namespace t3sim::collectives

namespace t3sim::collectives {
namespace {

TEST(AlgorithmTable, EveryRowParsesBackAndBuildsASchedule) {
  const std::span<const AlgorithmSpec> rows = algorithm_table();
  for (size_t i = 0; i < rows.size(); ++i) {
    const Algo a = algo_of_row(i);
    EXPECT_EQ(parse_algo(std::string(rows[i].name), "test"), a);
    EXPECT_EQ(std::string(to_string(a)), rows[i].name);
    EXPECT_EQ(&algorithm(a), &rows[i]);
    EXPECT_NE(rows[i].build, nullptr);
    EXPECT_FALSE(rows[i].help.empty());
    EXPECT_EQ(rows[i].help.find('\n'), std::string_view::npos) << "one line";
  }
  // Option help and allowed values come from the table: every row is named in them.
  for (const AlgorithmSpec& row : rows) {
    EXPECT_NE(algorithm_help().find(std::string(row.name) + ": " + std::string(row.help)),
              std::string::npos);
    EXPECT_NE(algorithm_choices().find(row.name), std::string::npos);
  }
  EXPECT_EQ(algorithm_names().front(), "auto");
  EXPECT_EQ(parse_algo("auto", "test"), Algo::kAuto);
  EXPECT_THROW(algorithm(Algo::kAuto), ModelError);
  EXPECT_THROW(parse_algo("rign", "test"), ConfigError);
}

}  // namespace
}  // namespace t3sim::collectives
