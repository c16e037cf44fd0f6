// Physics property: more of one resource never makes a run slower by more than 0.5 %. On four
// frozen machines (tests/fixtures: t3-ring-8, dgx-a100, dgx-h100, mi300x-8), each axis takes four
// values in increasing order (0.5x, 1x, 1.5x, 2x the preset's CUs, HBM bandwidth and link
// bandwidth, with the switch port scaled alongside the link; 8, 16, 24, 32 collective channels)
// and every neighbouring pair is compared:
//  - each Mega-GPT-2 sublayer (op, fc2, fc1, ip; 2048 tokens) in sequential, t3 and cu-split;
//  - a ring all-reduce of 4, 32 and 128 MiB (nccl-tests' sizes, float) over HBM, link, channels.
// Pairs that get slower for a reason of the model outside this suite's files are listed in
// kKnownSlower with the mechanism; docs/reliability.md ("Monotonicity audit") gives the numbers.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "models/collectives/collective.h"
#include "models/system/sublayer.h"
#include "models/system/system.h"
#include "sim/units_parse.h"
#include "studies/inputs.h"
#include "studies/probes.h"
#include "tests/reliability/frozen_machines.h"
#include "tests/support/fixtures.h"

namespace t3sim {
namespace {

constexpr double kTolerance = 1.005;  // 0.5 %
constexpr std::array<double, 4> kFactors{0.5, 1.0, 1.5, 2.0};
constexpr std::array<int, 4> kChannels{8, 16, 24, 32};

enum class Resource { kCus, kHbm, kLink, kChannels };
const char* name(Resource r) {
  switch (r) {
    case Resource::kCus:
      return "cus";
    case Resource::kHbm:
      return "hbm";
    case Resource::kLink:
      return "link";
    case Resource::kChannels:
      return "channels";
  }
  return "?";
}

// A neighbouring pair (step i-1 -> i of `resource`) left out of the assertion, and why.
struct KnownSlower {
  const char* system;
  const char* run;  // "fc2/cu-split", "all-reduce 32 MiB", ...
  Resource resource;
  int step;  // index of the larger value (1..3)
  const char* mechanism;
};
// Why a pair may get slower (each measured in the audit of docs/reliability.md):
// kOneWave: T3's overlap needs tiles that finish over several waves. With enough CUs for the
//   GEMM to run in one wave (dgx-h100 fc2: 192 tiles of 128 x 256 on 198 CUs) every tile ends at
//   once, the fused updates leave in one burst and the exposed reduce-scatter grows (14 -> 35 us)
//   more than the GEMM shrinks (46 -> 37 us). Real behaviour of tile-triggered overlap.
// kCuSplitContention: cu-split runs the all-reduce on 16 CUs beside the GEMM; a GEMM on more CUs
//   draws more HBM bandwidth and the collective, which sets the total, slows (mi300x-8 fc2:
//   GEMM 83 -> 69 us, reduce-scatter end 159 -> 199 us): the contention of the T3 paper's Fig. 6.
// kGemmPlan: sequential on mi300x-8 past 456 CUs: the GEMM itself is slower (models/gpu tile
//   plan); left to the GEMM model's owners.
// kRingChannels: ring all-reduce with 24 channels on 8 GPUs (16 -> 24 channels: 4 MiB +1.4 %,
//   32 MiB +0.9 % on dgx-a100, 32 MiB +3.4 %, 128 MiB +12.6 % on t3-ring-8): memory-bound where
//   the per-channel chunk is not a multiple of the 32 KiB HBM interleave (t3-ring-8 128 MiB, 684
//   KiB chunks; at 120 and 144 MiB, 640 and 768 KiB chunks, 24 channels are faster; 4 TB/s HBM
//   shrinks the loss to +1 %, a 64 KiB interleave grows it to +25 %). Not mended (models/hbm
//   address map with the chunk rounding).
// kNvlsHbm: NVLS all-reduce on dgx-h100, two pairs left after the lane stopped waiting for each
//   chunk's stores to land (128 MiB 1675 -> 3350 GB/s: 510 -> 519 us, +1.9 %; 32 MiB 5025 -> 6700
//   GB/s: 140.0 -> 141.8 us, +1.3 %; same algorithm, protocol and 16 channels): points of a jitter
//   of up to 3 % either way in a link-bound run, falling overall over twelve HBM bandwidths from
//   1675 to 6700 GB/s (128 MiB 509.7 ... 487.7 us, docs/reliability.md). HBM reorders the switch's
//   copies and the multicast stores in each GPU's one up-link queue; not isolated further.
constexpr const char* kOneWave = "one-wave GEMM: tile-triggered overlap lost";
constexpr const char* kCuSplitContention = "cu-split: a faster GEMM starves the collective";
constexpr const char* kGemmPlan = "GEMM plan on more CUs (models/gpu)";
constexpr const char* kRingChannels = "ring chunks off the HBM interleave at 24 channels";
constexpr const char* kNvlsHbm = "NVLS over faster HBM: link-bound ordering jitter";
const std::vector<KnownSlower> kKnownSlower{
    {"t3-ring-8", "op/cu-split", Resource::kCus, 1, kCuSplitContention},
    {"t3-ring-8", "op/cu-split", Resource::kCus, 3, kCuSplitContention},
    {"t3-ring-8", "fc2/cu-split", Resource::kCus, 2, kCuSplitContention},
    {"t3-ring-8", "fc2/cu-split", Resource::kCus, 3, kCuSplitContention},
    {"t3-ring-8", "fc1/cu-split", Resource::kCus, 2, kCuSplitContention},
    {"t3-ring-8", "fc1/cu-split", Resource::kCus, 3, kCuSplitContention},
    {"t3-ring-8", "fc2/t3", Resource::kCus, 3, kOneWave},
    {"t3-ring-8", "fc1/t3", Resource::kCus, 3, kOneWave},
    {"t3-ring-8", "ip/t3", Resource::kCus, 3, kOneWave},
    {"t3-ring-8", "all-reduce 32 MiB", Resource::kChannels, 2, kRingChannels},
    {"t3-ring-8", "all-reduce 128 MiB", Resource::kChannels, 2, kRingChannels},
    {"dgx-a100", "op/t3", Resource::kCus, 3, kOneWave},
    {"dgx-a100", "fc2/t3", Resource::kCus, 3, kOneWave},
    {"dgx-a100", "fc1/t3", Resource::kCus, 3, kOneWave},
    {"dgx-a100", "ip/t3", Resource::kCus, 3, kOneWave},
    {"dgx-a100", "all-reduce 4 MiB", Resource::kChannels, 2, kRingChannels},
    {"dgx-a100", "all-reduce 32 MiB", Resource::kChannels, 2, kRingChannels},
    {"dgx-h100", "op/t3", Resource::kCus, 1, kOneWave},
    {"dgx-h100", "op/t3", Resource::kCus, 2, kOneWave},
    {"dgx-h100", "fc2/t3", Resource::kCus, 2, kOneWave},
    {"dgx-h100", "fc1/t3", Resource::kCus, 2, kOneWave},
    {"dgx-h100", "ip/t3", Resource::kCus, 2, kOneWave},
    {"dgx-h100", "ip/cu-split", Resource::kCus, 2, kCuSplitContention},
    {"dgx-h100", "all-reduce 32 MiB", Resource::kHbm, 3, kNvlsHbm},
    {"dgx-h100", "all-reduce 128 MiB", Resource::kHbm, 1, kNvlsHbm},
    {"mi300x-8", "op/t3", Resource::kCus, 1, kOneWave},
    {"mi300x-8", "fc2/sequential", Resource::kCus, 3, kGemmPlan},
    {"mi300x-8", "fc1/sequential", Resource::kCus, 3, kGemmPlan},
    {"mi300x-8", "fc2/cu-split", Resource::kCus, 1, kCuSplitContention},
    {"mi300x-8", "fc2/cu-split", Resource::kCus, 3, kCuSplitContention},
    {"mi300x-8", "fc1/cu-split", Resource::kCus, 1, kCuSplitContention},
    {"mi300x-8", "fc1/cu-split", Resource::kCus, 3, kCuSplitContention},
    {"mi300x-8", "ip/t3", Resource::kCus, 2, kOneWave},
    {"mi300x-8", "ip/cu-split", Resource::kCus, 1, kCuSplitContention},
};

bool known(const std::string& system, const std::string& run, Resource r, int step) {
  for (const auto& k : kKnownSlower) {
    if (system == k.system && run == k.run && r == k.resource && step == k.step) return true;
  }
  return false;
}

double bandwidth_bps(const ConfigDoc& doc, const char* a, const char* b, const char* c = nullptr) {
  const nlohmann::json& node = c ? doc.root[a][b][c] : doc.root[a][b];
  return static_cast<double>(parse_bandwidth(node.get<std::string>()).bytes_per_second());
}

std::string gbps(double bps) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "\"%.3f GB/s\"", bps / 1e9);
  return buf;
}

// The `--set` overrides of step `i` of `r` on `system`.
std::vector<std::string> step_sets(const std::string& system, Resource r, int i) {
  const ConfigDoc doc = system::load_system_config(system, testing::fixtures_dir(), {});
  const double f = kFactors[static_cast<size_t>(i)];
  switch (r) {
    case Resource::kCus:
      return {"gpu.cus=" + std::to_string(static_cast<int>(doc.root["gpu"]["cus"].get<int>() * f))};
    case Resource::kHbm:
      return {"hbm.bandwidth=" + gbps(bandwidth_bps(doc, "hbm", "bandwidth") * f)};
    case Resource::kLink: {
      std::vector<std::string> s{"fabric.link.bandwidth=" +
                                 gbps(bandwidth_bps(doc, "fabric", "link", "bandwidth") * f)};
      if (doc.root["fabric"].contains("switch")) {
        s.push_back("fabric.switch.port_bandwidth=" +
                    gbps(bandwidth_bps(doc, "fabric", "switch", "port_bandwidth") * f));
      }
      return s;
    }
    case Resource::kChannels:
      return {"collectives.channels=" + std::to_string(kChannels[static_cast<size_t>(i)])};
  }
  return {};
}

// Checks the four runs of one axis; `run(sets)` gives a time in us.
template <typename Run>
void check_axis(const std::string& system, const std::string& what, Resource r, Run run) {
  std::array<double, 4> t{};
  for (int i = 0; i < 4; ++i) t[static_cast<size_t>(i)] = run(step_sets(system, r, i));
  for (int i = 1; i < 4; ++i) {
    const double a = t[static_cast<size_t>(i - 1)], b = t[static_cast<size_t>(i)];
    if (known(system, what, r, i)) continue;
    EXPECT_LE(b, a * kTolerance) << system << " " << what << ": more " << name(r) << " (step "
                                 << i - 1 << " -> " << i << ") " << a << " -> " << b << " us (+"
                                 << (b / a - 1) * 100 << " %)";
  }
}

class Monotonic : public ::testing::TestWithParam<const char*> {};

TEST_P(Monotonic, SublayersNeverSlowerWithMoreOfOneResource) {
  const std::string system = GetParam();
  const studies::Env env{testing::fixtures_dir(), T3SIM_SOURCE_DIR};
  for (const char* sub : {"op", "fc2", "fc1", "ip"}) {
    const studies::SublayerChoice c = studies::choose_sublayer(env, "mega-gpt2", 8, sub, 2048);
    for (const system::Mode mode :
         {system::Mode::kSequential, system::Mode::kT3, system::Mode::kCuSplit}) {
      const std::string what = std::string(sub) + "/" + std::string(system::to_string(mode));
      for (const Resource r :
           {Resource::kCus, Resource::kHbm, Resource::kLink, Resource::kChannels}) {
        check_axis(system, what, r, [&](const std::vector<std::string>& sets) {
          return system::run_sublayer(
                     system::load_system_config(system, testing::fixtures_dir(), sets), c.spec,
                     mode)
              .total_us;
        });
      }
    }
  }
}

TEST_P(Monotonic, AllReduceNeverSlowerWithMoreOfOneResource) {
  const std::string system = GetParam();
  for (const uint64_t mib : std::initializer_list<uint64_t>{4, 32, 128}) {
    const std::string what = "all-reduce " + std::to_string(mib) + " MiB";
    for (const Resource r : {Resource::kHbm, Resource::kLink, Resource::kChannels}) {
      check_axis(system, what, r, [&](const std::vector<std::string>& sets) {
        collectives::CollectiveSpec spec;
        spec.bytes = mib << 20;
        spec.fold = true;
        return studies::probe_collective(
                   system::load_system_config(system, testing::fixtures_dir(), sets), spec)
            .time_us;
      });
    }
  }
}

INSTANTIATE_TEST_SUITE_P(FrozenMachines, Monotonic, testing::kFrozenMachines,
                         testing::machine_param_name);

}  // namespace
}  // namespace t3sim
