// Small systems shared by the system tests: the T3 paper's 8-GPU ring (t3-ring-8, frozen in
// tests/fixtures) and the same GPUs as two nodes of four on a rail-optimised two-level fabric.
#pragma once

#include <filesystem>

#include "models/system/system.h"
#include "tests/support/fixtures.h"

namespace t3sim::system::testing {

inline const ConfigDoc& ring8() {
  static const ConfigDoc doc = load_system_config("t3-ring-8", t3sim::testing::fixtures_dir());
  return doc;
}

inline ConfigDoc two_nodes() {
  ConfigDoc two = ring8();
  two.root["fabric"] = {{"topology", "two_level"},
                        {"nodes", 2},
                        {"gpus_per_node", 4},
                        {"link", {{"bandwidth", "100 GB/s"}, {"latency", "1 us"}}},
                        {"switch", {{"latency", "1 us"}, {"port_bandwidth", "100 GB/s"}}},
                        {"nic", {{"bandwidth", "25 GB/s"}, {"latency", "2 us"}}},
                        {"ib_switch", {{"latency", "1 us"}, {"port_bandwidth", "25 GB/s"}}}};
  return two;
}

}  // namespace t3sim::system::testing
