// run_sublayer / run_piece on the frozen t3-ring-8 (tests/fixtures) with small shapes (Mega-GPT-2
// FC-2 at 1024 tokens; T-NLG FC-2 at 2048 tokens). Checks T3's reduction invariants (every chunk
// ends with N contributions, each DMA entry triggers once), conservation (fabric bytes sent ==
// received, link bytes of the fused RS == (N-1) x output, traffic classes sum to the total), MCA
// with an unreachable threshold == plain T3, T3 on near-infinite links == GEMM + AG, less DRAM
// traffic under T3 than sequential (the paper's time ordering, which rests on the fitted presets,
// is in tests/regression), the AG after a fused RS equal to the standalone AG (T3 and T3-MCA;
// include_ag = false + append_ag), and determinism.
#include "models/system/sublayer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "models/system/system.h"
#include "models/workload/model_spec.h"
#include "models/workload/sublayer.h"
#include "sim/errors.h"
#include "tests/support/fixtures.h"

namespace t3sim::system {
namespace {

const std::filesystem::path kConfigs = t3sim::testing::fixtures_dir();
constexpr uint64_t kGpus = 8;

const ConfigDoc& ring8() {
  static const ConfigDoc doc = load_system_config("t3-ring-8", kConfigs);
  return doc;
}

SublayerSpec mega_fc2() {
  SublayerSpec s;
  s.shape = {1024, 3072, 1536};  // Mega-GPT-2 FC-2 forward at TP 8, 1024 tokens
  return s;
}

SublayerSpec tnlg_fc2() {
  const auto model = workload::load_model_by_name("t-nlg", kConfigs / "models");
  const auto t =
      workload::t3_sublayer(model, 8, 2048, workload::Sublayer::kFc2, workload::Pass::kFwd);
  SublayerSpec s;
  s.shape = {static_cast<uint64_t>(t.gemm.m), static_cast<uint64_t>(t.gemm.n),
             static_cast<uint64_t>(t.gemm.k)};
  return s;
}

uint64_t class_sum(const SublayerResult& r) {
  return std::accumulate(r.dram_bytes.begin(), r.dram_bytes.end(), uint64_t{0});
}

uint64_t dram(const SublayerResult& r, common::TrafficClass c) {
  return r.dram_bytes[static_cast<size_t>(c)];
}

// Sums the stat `name` over every group below a group called "fabric".
uint64_t fabric_stat(const nlohmann::ordered_json& j, const std::string& name,
                     bool in_fabric = false) {
  uint64_t sum = 0;
  if (!j.is_object()) return 0;
  for (const auto& [k, v] : j.items()) {
    if (in_fabric && k == name && v.is_object() && v.contains("value")) {
      sum += v["value"].get<uint64_t>();
    } else if (v.is_object()) {
      sum += fabric_stat(v, name, in_fabric || k == "fabric");
    }
  }
  return sum;
}

// sequential-nmc (a row composed from existing pieces): the GEMM, then the NMC reduce-scatter
// piece, then the all-gather, each alone. Its reduce-scatter is exactly the piece's, its total the
// three pieces' sum, and t3, which runs that reduce-scatter fused with the GEMM, is not slower.
TEST(SublayerRun, SequentialNmcIsTheNmcPieceWithoutOverlap) {
  const auto mode = parse_mode("sequential-nmc");
  ASSERT_TRUE(mode.has_value());
  const auto r = run_sublayer(ring8(), mega_fc2(), *mode);
  EXPECT_EQ(r.mode, *mode);
  const auto gemm = run_piece(ring8(), mega_fc2(), Piece::kGemm);
  const auto rs = run_piece(ring8(), mega_fc2(), Piece::kRsNmc);
  const auto ag = run_piece(ring8(), mega_fc2(), Piece::kAgCu);
  EXPECT_DOUBLE_EQ(r.rs_us, rs.total_us);
  EXPECT_DOUBLE_EQ(r.rs_exposed_us, rs.total_us);
  EXPECT_DOUBLE_EQ(r.total_us, gemm.total_us + rs.total_us + ag.total_us);
  EXPECT_EQ(r.dram_total, gemm.dram_total + rs.dram_total + ag.dram_total);
  // The reduction happens in memory: UPDATEs, where sequential's CU kernel reads and writes.
  const auto seq = run_sublayer(ring8(), mega_fc2(), Mode::kSequential);
  EXPECT_GT(dram(r, common::TrafficClass::kRsUpdate), 0u);
  EXPECT_EQ(dram(seq, common::TrafficClass::kRsUpdate), 0u);
  EXPECT_GE(r.total_us, run_sublayer(ring8(), mega_fc2(), Mode::kT3).total_us);
}

TEST(SublayerRun, T3RingCompletesEveryChunkAndTriggersEachEntryOnce) {
  // A chunk finishing with != N contributions is a ModelError inside the run.
  SublayerResult r;
  ASSERT_NO_THROW(r = run_sublayer(ring8(), mega_fc2(), Mode::kT3));
  const uint64_t tiles = (1024 / 128) * (3072 / 128);
  EXPECT_EQ(r.tracker_triggers, (kGpus - 2) * (tiles / kGpus) * kGpus);
  EXPECT_GT(r.rs_us, 0.0);
  EXPECT_GE(r.total_us, r.rs_us + r.ag_us - 1e-9);
  EXPECT_EQ(class_sum(r), r.dram_total);
  // Every output byte is stored once per GPU as an UPDATE, nothing as a plain write.
  EXPECT_EQ(dram(r, common::TrafficClass::kGemmUpdate), kGpus * output_bytes(mega_fc2()));
  EXPECT_EQ(dram(r, common::TrafficClass::kGemmWrite), 0u);
  // N-2 forwarded chunks per GPU: read once locally, updated once remotely.
  const uint64_t fwd = kGpus * (kGpus - 2) * output_bytes(mega_fc2()) / kGpus;
  EXPECT_EQ(dram(r, common::TrafficClass::kRsRead), fwd);
  EXPECT_EQ(dram(r, common::TrafficClass::kRsUpdate), fwd);
}

TEST(SublayerRun, T3DirectCompletesEveryChunk) {
  SublayerResult r;
  ASSERT_NO_THROW(r = run_sublayer(ring8(), mega_fc2(), Mode::kT3Direct));
  EXPECT_EQ(r.mode, Mode::kT3Direct);
  EXPECT_EQ(r.tracker_triggers, 0u);  // no DMA: tiles land at their owner directly
  EXPECT_EQ(dram(r, common::TrafficClass::kRsRead), 0u);
  EXPECT_EQ(dram(r, common::TrafficClass::kGemmUpdate), kGpus * output_bytes(mega_fc2()));
  EXPECT_EQ(class_sum(r), r.dram_total);
  EXPECT_GT(r.total_us, r.ag_us);
}

TEST(SublayerRun, FabricBytesSentEqualReceived) {
  RunOptions o;
  o.stats = true;
  for (Mode m : {Mode::kT3, Mode::kT3Direct, Mode::kSequential, Mode::kIdeal, Mode::kIdealNmc}) {
    SCOPED_TRACE(std::string(to_string(m)));
    const auto r = run_sublayer(ring8(), mega_fc2(), m, o);
    ASSERT_FALSE(r.stats.is_null());
    // Every dump has the resolved config, the run's clock and events, and the stats tree (the
    // ideal modes compose three runs: one tree per run).
    for (const char* k : {"config", "sim", "stats"}) EXPECT_TRUE(r.stats.contains(k)) << k;
    EXPECT_GT(r.stats["sim"]["events"].get<uint64_t>(), 0u);
    const uint64_t sent = fabric_stat(r.stats["stats"], "bytes_sent");
    const uint64_t received = fabric_stat(r.stats["stats"], "bytes_received");
    EXPECT_GT(sent, 0u);
    EXPECT_EQ(sent, received);
    EXPECT_GT(r.link_bytes, 0u);
  }
}

TEST(SublayerRun, FusedReduceScatterMovesExactlyTheRingVolume) {
  const auto ag = run_piece(ring8(), mega_fc2(), Piece::kAgCu);
  const uint64_t out = output_bytes(mega_fc2());
  // Ring: each GPU sends N-1 chunks (1 stage-1 store + N-2 DMAs) of out/N one hop.
  const auto t3 = run_sublayer(ring8(), mega_fc2(), Mode::kT3);
  EXPECT_EQ(t3.link_bytes - ag.link_bytes, (kGpus - 1) * out);
  // Direct on a bidirectional ring: chunk c travels min(d, N-d) hops from each other GPU.
  const auto direct = run_sublayer(ring8(), mega_fc2(), Mode::kT3Direct);
  uint64_t hops = 0;
  for (uint64_t d = 1; d < kGpus; ++d) hops += std::min(d, kGpus - d);
  EXPECT_EQ(direct.link_bytes - ag.link_bytes, hops * out);
}

TEST(SublayerRun, McaWithUnreachableThresholdEqualsT3) {
  const ConfigDoc off = load_system_config(
      "t3-ring-8", kConfigs,
      {"hbm.mca_mode=static", "hbm.mca_threshold=1 GiB", "hbm.mca_compute_first=false"});
  const auto t3 = run_sublayer(off, mega_fc2(), Mode::kT3);
  const auto mca = run_sublayer(off, mega_fc2(), Mode::kT3Mca);
  EXPECT_EQ(mca.total_us, t3.total_us);
  EXPECT_EQ(mca.gemm_us, t3.gemm_us);
  EXPECT_EQ(mca.dram_total, t3.dram_total);
  EXPECT_EQ(mca.dram_bytes, t3.dram_bytes);
  EXPECT_EQ(mca.events, t3.events);
}

TEST(SublayerRun, T3OnNearInfiniteLinksIsGemmPlusAllGather) {
  const ConfigDoc fast = load_system_config(
      "t3-ring-8", kConfigs, {"fabric.link.bandwidth=100 TB/s", "fabric.link.latency=1 ns"});
  const auto gemm = run_piece(fast, mega_fc2(), Piece::kGemm);
  const auto ag = run_piece(fast, mega_fc2(), Piece::kAgCu);
  const auto t3 = run_sublayer(fast, mega_fc2(), Mode::kT3);
  const double expect = gemm.total_us + ag.total_us;
  // The fused GEMM still shares HBM with the reduce-scatter's DMA reads and NMC updates (memory
  // contention, not link time): 2 %.
  EXPECT_NEAR(t3.total_us, expect, 0.02 * expect)
      << "gemm " << gemm.total_us << " ag " << ag.total_us << " rs exposed " << t3.rs_exposed_us;
  // More bandwidth never makes it slower.
  const auto slow = run_sublayer(ring8(), mega_fc2(), Mode::kT3);
  EXPECT_LE(t3.total_us, slow.total_us);
}

// The paper's time ordering of these modes depends on the fitted constants of the presets: it is
// pinned on the shipped T3 machine in tests/regression. The data movement is the mechanism's.
TEST(SublayerRun, TnlgFc2T3MovesLessDramDataThanSequential) {
  const SublayerSpec s = tnlg_fc2();
  ASSERT_EQ(s.shape.m, 2048u);
  ASSERT_EQ(s.shape.n, 4256u);
  ASSERT_EQ(s.shape.k, 17024u / 8);
  const auto seq = run_sublayer(ring8(), s, Mode::kSequential);
  const auto t3 = run_sublayer(ring8(), s, Mode::kT3);
  const auto mca = run_sublayer(ring8(), s, Mode::kT3Mca);
  EXPECT_LT(t3.dram_total, seq.dram_total);
  EXPECT_LT(mca.dram_total, seq.dram_total);
  EXPECT_LT(dram(t3, common::TrafficClass::kRsRead), dram(seq, common::TrafficClass::kRsRead));
  for (const auto* r : {&seq, &t3, &mca}) EXPECT_EQ(class_sum(*r), r->dram_total);
}

TEST(SublayerRun, ShallowQueuesSlowTheFusedGemm) {
  // With DRAM queues as shallow as Accel-Sim's (64 x 128 B), the reduce-scatter's traffic queues
  // ahead of the GEMM's reads and slows it. (That MCA then gives part of it back holds for the
  // shipped HBM constants, not for all: at 110 ns instead of 100 ns of HBM latency it does not;
  // tests/regression checks it on the shipped T3 machine.)
  const ConfigDoc shallow =
      load_system_config("t3-ring-8", kConfigs, {"hbm.read_queue=8 KiB", "hbm.write_queue=8 KiB"});
  const SublayerSpec s = tnlg_fc2();
  const auto gemm = run_piece(shallow, s, Piece::kGemm);
  const auto t3 = run_sublayer(shallow, s, Mode::kT3);
  EXPECT_GT(t3.gemm_us, gemm.total_us) << "the fused GEMM must feel the reduce-scatter";
}

TEST(SublayerRun, T3AllGatherEqualsStandaloneAllGather) {
  // The AG is not fused: after the fused RS it is the same collective as the AG piece, and a run
  // without it plus the piece equals the full run.
  const auto ag = run_piece(ring8(), mega_fc2(), Piece::kAgCu);
  const auto full = run_sublayer(ring8(), mega_fc2(), Mode::kT3);
  EXPECT_NEAR(full.ag_us, ag.total_us, 1e-6);
  SublayerSpec no_ag = mega_fc2();
  no_ag.include_ag = false;
  auto part = run_sublayer(ring8(), no_ag, Mode::kT3);
  EXPECT_EQ(part.ag_us, 0.0);
  EXPECT_NEAR(part.total_us, full.rs_us, 1e-6);
  append_ag(part, ag);
  EXPECT_NEAR(part.total_us, full.total_us, 1e-6);
  EXPECT_EQ(part.dram_total, full.dram_total);
  EXPECT_EQ(part.link_bytes, full.link_bytes);
}

TEST(SublayerRun, McaAllGatherEqualsStandaloneAllGather) {
  // MCA arbitrates the overlapped GEMM + RS only (t3-paper.md §3.7); the AG after it must run as
  // in every other mode. Regression: run_fused once left every HBM on the "mca" policy (with the
  // threshold learned during the GEMM) for the AG, which then differed from the standalone AG by
  // ~1 % and put T3-MCA ahead of the ideal bound on T-NLG FC-2.
  const auto ag = run_piece(ring8(), mega_fc2(), Piece::kAgCu);
  const auto mca = run_sublayer(ring8(), mega_fc2(), Mode::kT3Mca);
  EXPECT_NEAR(mca.ag_us, ag.total_us, 1e-6);
}

TEST(SublayerRun, SameRunTwiceGivesIdenticalJson) {
  for (Mode m : {Mode::kT3Mca, Mode::kSequential}) {
    auto a = to_json(run_sublayer(ring8(), mega_fc2(), m));
    auto b = to_json(run_sublayer(ring8(), mega_fc2(), m));
    ASSERT_TRUE(a.contains("wall_s"));
    a.erase("wall_s");
    b.erase("wall_s");
    EXPECT_EQ(a.dump(), b.dump()) << to_string(m);
  }
}

TEST(SublayerRun, GemmPieceEqualsSequentialGemmTime) {
  const auto piece = run_piece(ring8(), mega_fc2(), Piece::kGemm);
  const auto seq = run_sublayer(ring8(), mega_fc2(), Mode::kSequential);
  EXPECT_GT(piece.total_us, 0.0);
  EXPECT_EQ(piece.gemm_us, piece.total_us);
  EXPECT_DOUBLE_EQ(piece.total_us, seq.gemm_us);
  // The sequential total is its three phases back to back.
  EXPECT_NEAR(seq.total_us, seq.gemm_us + seq.rs_us + seq.ag_us, 1e-3);
}

TEST(SublayerRun, IdealIsComposedFromPieces) {
  const auto g = run_piece(ring8(), mega_fc2(), Piece::kGemm);
  const auto rs = run_piece(ring8(), mega_fc2(), Piece::kRsCu);
  const auto ag = run_piece(ring8(), mega_fc2(), Piece::kAgCu);
  const auto ideal = run_sublayer(ring8(), mega_fc2(), Mode::kIdeal);
  EXPECT_DOUBLE_EQ(ideal.total_us, std::max(g.total_us, rs.total_us) + ag.total_us);
  EXPECT_EQ(ideal.dram_total, g.dram_total + rs.dram_total + ag.dram_total);
  EXPECT_EQ(ideal.link_bytes, g.link_bytes + rs.link_bytes + ag.link_bytes);
  EXPECT_EQ(g.link_bytes, 0u);  // the GEMM alone never touches the fabric
}

}  // namespace
}  // namespace t3sim::system
