// Bounded resources for values inside the declared ranges, one test per class: "extends" fan-out
// (bounded file reads), clocks and durations that would wrap ticks (kind limits, shown by
// describe), packet sizes past 32 bits, the HBM timeline of a tiny bin (capped, bytes conserved),
// GEMMs whose per-tile state would take gigabytes (refused before anything is built, by the GPU
// model itself too), a kernel that never finishes (a ModelError, never Tick::max() as a time), and
// workload errors from command-line values naming the flag instead of "<input>: /tp".
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/fabric/specs.h"
#include "models/gpu/gemm_plan.h"
#include "models/system/replay.h"
#include "models/system/scenario.h"
#include "models/system/sublayer.h"
#include "models/workload/trace.h"
#include "sim/config.h"
#include "sim/errors.h"
#include "tests/reliability/rejects.h"

namespace t3sim::reliability {
namespace {

namespace fs = std::filesystem;

// Each of 17 files extends the next one twice: 2^17 reads without a bound on the total.
TEST(ResourceLimits, ExtendsFanOutIsBounded) {
  const fs::path d = fs::temp_directory_path() / ("t3sim_fanout_" + std::to_string(::getpid()));
  fs::create_directories(d);
  for (int i = 0; i < 17; ++i) {
    const std::string next = "f" + std::to_string(i + 1) + ".json";
    std::ofstream(d / ("f" + std::to_string(i) + ".json"))
        << (i == 16 ? std::string("{\"x\": 1}")
                    : "{\"extends\": [\"" + next + "\", \"" + next + "\"], \"y\": 2}");
  }
  EXPECT_TRUE(rejects<ConfigError>([&] { load_config(d / "f0.json"); },
                                   "/extends: \"extends\" reads more than 256 files"));
  const ConfigDoc ok = load_config(d / "f9.json");  // 2^8 - 2 reads: within the bound
  EXPECT_EQ(ok.root.at("x"), 1);
  fs::remove_all(d);
}

TEST(ResourceLimits, ClocksAndDurationsThatWouldWrapTicks) {
  for (const char* set :
       {"gpu.clock=\"1 Hz\"", "gpu.clock=\"100 Hz\"", "gpu.clock=\"1000 GHz\"",
        "fabric.link.latency=\"100 s\"", "hbm.latency=\"2 s\"", "gpu.launch_overhead=\"100 s\""}) {
    SCOPED_TRACE(set);
    EXPECT_TRUE(
        rejects<ConfigError>([&] { studies::check_system(ring8({set})); }, "is out of range"));
  }
  EXPECT_NO_THROW(studies::check_system(ring8({"gpu.clock=\"1 MHz\"", "hbm.latency=\"1 s\""})));
}

TEST(ResourceLimits, PacketSizeHasADeclaredMaximum) {
  EXPECT_TRUE(rejects<ConfigError>(
      [&] { studies::check_system(ring8({"fabric.link.packet_size=\"8 GiB\""})); },
      "/fabric/link/packet_size: 'packet_size' is out of range: must be >= 1 B and <= 4294967295 "
      "B"));
  const auto described = fabric::link_params().describe();
  bool shown = false;
  for (const auto& p : described) {
    if (p.value("name", "") == "packet_size") shown = p.contains("max");
  }
  EXPECT_TRUE(shown) << described.dump();
}

// A 1 ps bin over a ~100 us run would be 10^8 bins (5 GB per GPU); the timeline widens its bins
// instead, keeps at most 4096 and loses no byte.
TEST(ResourceLimits, TinyTimelineBinIsCapped) {
  system::SublayerSpec s;
  s.shape = {1024, 3072, 768};
  system::RunOptions o;
  o.timeline = true;
  const auto sum = [](const system::SublayerResult& r) {
    uint64_t b = 0;
    for (const auto& bin : r.timeline) {
      for (uint64_t x : bin) b += x;
    }
    return b;
  };
  const auto base = system::run_sublayer(ring8(), s, system::Mode::kSequential, o);
  const auto tiny =
      system::run_sublayer(ring8({"hbm.timeline_bin=\"1 ps\""}), s, system::Mode::kSequential, o);
  EXPECT_LE(tiny.timeline.size(), 4096u);
  EXPECT_GT(tiny.timeline.size(), 2048u);  // widened only as far as needed
  EXPECT_GT(tiny.timeline_bin_us, 0.0);
  EXPECT_EQ(sum(tiny), sum(base));
  EXPECT_GT(sum(base), 0u);
}

// m = 2^32 rows: far below the trace format's 2^50, but ~2^25 output tiles of per-tile state per
// GPU. Refused with the op's pointer before anything is built; the GPU model refuses it on its
// own too (ModelError, no wrapped 32-bit count, no bad_alloc).
TEST(ResourceLimits, GemmWhoseStateWouldTakeGigabytes) {
  const nlohmann::json t = {{"version", 1},
                            {"metadata", {{"tp", 8}}},
                            {"ops",
                             {{{"id", "g"},
                               {"kind", "gemm"},
                               {"shape", {{"m", uint64_t{1} << 32}, {"n", 1024}, {"k", 1024}}},
                               {"dtype", "fp16"},
                               {"stream", 0}}}}};
  EXPECT_TRUE(rejects<ConfigError>(
      [&] { system::replay_trace(ring8(), workload::parse_trace(t, "big.json"), "big.json"); },
      "work-groups, above the model's 2097152"));
  EXPECT_TRUE(rejects<ModelError>(
      [] { gpu::check_gemm_counts("k", uint64_t{1} << 40, uint64_t{1} << 40, 1, 1); },
      "GEMM beyond the model"));
  EXPECT_TRUE(rejects<ModelError>(
      [] {
        gpu::local_gemm_plan({uint64_t{1} << 45, 4096, 64}, 2, 128, 128, 8, 0, 0, 0, 0);
      },
      "work-groups"));
  EXPECT_NO_THROW(gpu::check_gemm_counts("k", 1024, 2048, 1, 1));
}

// A kernel whose tiles are never admitted (a tracker that never frees an entry) ends the run with a
// ModelError naming the kernel, never with Tick::max() reported as its end.
TEST(ResourceLimits, KernelThatNeverFinishesIsAModelError) {
  class Refuse : public gpu::GemmHooks {
   public:
    bool admit(uint32_t) override { return false; }
  } refuse;
  system::Scenario sc(ring8(), 1, nullptr);
  const gpu::GemmShape shape{256, 256, 256};
  sc.allocate(shape, 2);
  sc.launch_local_gemm(0, shape, 2, sc.spec().cus, &refuse);
  EXPECT_TRUE(rejects<ModelError>([&] { sc.run(); }, "launched but never finished"));
}

TEST(ResourceLimits, CommandLineValuesAreNamedByTheirFlag) {
  try {
    cli::choose_sublayer(fixtures_env(), "t-nlg", 3, "fc2", 0);
    ADD_FAILURE() << "tp 3 accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "--tp");
    EXPECT_EQ(std::string(e.what()).rfind("--tp: ", 0), 0u) << e.what();
    EXPECT_EQ(std::string(e.what()).find("<input>"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(rejects<ConfigError>(
      [] { cli::choose_sublayer(fixtures_env(), "t-nlg", 8, "fc2", 3000); }, "--tokens: "));
  EXPECT_TRUE(rejects<ConfigError>(
      [] { cli::choose_sublayer(fixtures_env(), "t-nlg", 3, "fc2", 0, "run.json"); },
      "run.json: /tp: "));
}

}  // namespace
}  // namespace t3sim::reliability
