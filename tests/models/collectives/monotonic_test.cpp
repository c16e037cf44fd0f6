// Physics runs forwards: more link bandwidth, more HBM bandwidth or more channels never make a
// collective (or a sublayer) slower, beyond a small tolerance for event-order noise. Cases: ring
// all-gathers on t3-ring-32 sized so a channel's slice is just over the CU window (the shape that
// used to run up to 1.7x slower than the same data with a faster memory or link), the switch
// machine dgx-a100, dgx-h100's NVLS all-reduce over HBM bandwidth, and T3 / sequential sublayers on
// t3-ring-8.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "models/system/sublayer.h"
#include "models/system/system.h"
#include "tests/support/fixtures.h"

namespace t3sim::system {
namespace {

const std::filesystem::path kConfigs = t3sim::testing::fixtures_dir();
constexpr double kTolerance = 1.005;  // 0.5 %

using Sets = std::vector<std::string>;

double all_gather_us(const std::string& system, const Sets& sets, uint64_t bytes) {
  CollectiveJob job;
  job.op = CollOp::kAllGather;
  job.bytes = bytes;
  return run_collective(load_system_config(system, kConfigs, sets), job).total_us;
}

// Times along an axis ordered by increasing resource; each must be <= the previous x tolerance.
void expect_nonincreasing(const std::vector<std::string>& axis, const std::vector<double>& us) {
  for (size_t i = 1; i < us.size(); ++i) {
    EXPECT_LE(us[i], us[i - 1] * kTolerance)
        << axis[i - 1] << " -> " << axis[i] << ": " << us[i - 1] << " -> " << us[i] << " us";
  }
}

struct Machine {
  std::string system;
  std::vector<std::string> link_keys;  // every key that caps the per-link rate
  std::vector<std::string> links;      // increasing
  std::vector<std::string> hbms;       // increasing
  std::vector<int> channels;           // increasing
  uint64_t bytes;
};

void check_machine(const Machine& m) {
  SCOPED_TRACE(m.system);
  auto sets = [&](const std::string& link, const std::string& hbm) {
    Sets s{"hbm.bandwidth=" + hbm};
    for (const auto& k : m.link_keys) s.push_back(k + "=" + link);
    return s;
  };
  std::vector<std::vector<double>> t(m.hbms.size(), std::vector<double>(m.links.size()));
  for (size_t h = 0; h < m.hbms.size(); ++h) {
    for (size_t l = 0; l < m.links.size(); ++l) {
      t[h][l] = all_gather_us(m.system, sets(m.links[l], m.hbms[h]), m.bytes);
    }
  }
  for (size_t h = 0; h < m.hbms.size(); ++h) {
    SCOPED_TRACE("hbm " + m.hbms[h] + ", over link bandwidth");
    expect_nonincreasing(m.links, t[h]);
  }
  for (size_t l = 0; l < m.links.size(); ++l) {
    SCOPED_TRACE("link " + m.links[l] + ", over HBM bandwidth");
    std::vector<double> col;
    for (size_t h = 0; h < m.hbms.size(); ++h) col.push_back(t[h][l]);
    expect_nonincreasing(m.hbms, col);
  }
  std::vector<std::string> names;
  std::vector<double> by_channels;
  for (int c : m.channels) {
    Sets s = sets(m.links.front(), m.hbms.front());
    s.push_back("collectives.channels=" + std::to_string(c));
    names.push_back(std::to_string(c) + " channels");
    by_channels.push_back(all_gather_us(m.system, s, m.bytes));
  }
  SCOPED_TRACE("over channels");
  expect_nonincreasing(names, by_channels);
}

TEST(CollectiveMonotonic, RingAllGatherWithSlicesJustOverTheCuWindow) {
  // 32 ranks x 16 channels x 80 KiB: 40 KiB slices, 8 KiB over the 32 KiB CU window. Before the
  // window was released at store issue: 645.8 us at 75 GB/s but 685.8 us at 150 GB/s (3.35 TB/s).
  check_machine({"t3-ring-32",
                 {"fabric.link.bandwidth"},
                 {"75 GB/s", "150 GB/s", "300 GB/s"},
                 {"1 TB/s", "2 TB/s", "3.35 TB/s"},
                 {4, 8, 16},
                 uint64_t{32} * 16 * 80 * 1024});
}

TEST(CollectiveMonotonic, SwitchAllGather) {
  check_machine({"dgx-a100",
                 {"fabric.link.bandwidth", "fabric.switch.port_bandwidth"},
                 {"150 GB/s", "300 GB/s", "600 GB/s"},
                 {"1 TB/s", "2 TB/s", "3.35 TB/s"},
                 {8, 16, 24},
                 uint64_t{8} * 24 * 40 * 1024});
}

TEST(CollectiveMonotonic, NvlsAllReduceOverHbmBandwidth) {
  // dgx-h100's NVLS all-reduce (the tuner's pick at 128 MiB). While each lane waited for a chunk's
  // stores to land before loading the next, faster HBM filled the up-links with the switch's copies
  // ahead of those stores (nccl-tests: 523 -> 550 us from 3.35 to 6.7 TB/s).
  const std::vector<std::string> hbms{"3350 GB/s", "5025 GB/s", "6700 GB/s"};
  std::vector<double> us;
  for (const auto& hbm : hbms) {
    CollectiveJob job;
    job.bytes = uint64_t{128} << 20;
    job.elem_bytes = 4;
    us.push_back(
        run_collective(load_system_config("dgx-h100", kConfigs, {"hbm.bandwidth=\"" + hbm + "\""}),
                       job)
            .total_us);
  }
  expect_nonincreasing(hbms, us);
}

SublayerResult sublayer(Mode mode, const std::string& link, const std::string& hbm) {
  SublayerSpec s;
  s.shape = {1024, 3072, 1536};  // Mega-GPT-2 FC-2 forward at TP 8, 1024 tokens
  return run_sublayer(load_system_config("t3-ring-8", kConfigs,
                                         {"fabric.link.bandwidth=" + link, "hbm.bandwidth=" + hbm}),
                      s, mode);
}

TEST(CollectiveMonotonic, RingSublayersOverLinkAndHbmBandwidth) {
  const std::vector<std::string> links{"75 GB/s", "150 GB/s", "300 GB/s"};
  const std::vector<std::string> hbms{"1 TB/s", "2 TB/s"};
  for (Mode mode : {Mode::kSequential, Mode::kT3}) {
    SCOPED_TRACE(std::string(to_string(mode)));
    for (const auto& hbm : hbms) {
      std::vector<double> total;
      std::vector<double> ag;
      for (const auto& link : links) {
        const SublayerResult r = sublayer(mode, link, hbm);
        total.push_back(r.total_us);
        ag.push_back(r.ag_us);
      }
      SCOPED_TRACE("hbm " + hbm);
      expect_nonincreasing(links, total);
      expect_nonincreasing(links, ag);
    }
    std::vector<double> total;
    for (const auto& hbm : hbms) total.push_back(sublayer(mode, links.front(), hbm).total_us);
    expect_nonincreasing(hbms, total);
  }
}

}  // namespace
}  // namespace t3sim::system
