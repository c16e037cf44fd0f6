// Test support: paths of the committed data the workload tests read (the frozen model zoo in
// tests/fixtures/models, the shipped one in configs/models for the tests about it, traces/samples),
// found through T3SIM_SOURCE_DIR (set by t3sim_add_tests), a per-test scratch
// folder under the GoogleTest temp dir (emptied when made, removed when it goes), and a printer for
// GemmShape so failed comparisons read "8192x4256x2128 (batch 1)".
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "models/workload/sublayer.h"
#include "tests/support/fixtures.h"
#include "tests/support/scratch_dir.h"

namespace t3sim::workload::testing {

inline std::filesystem::path source_dir() { return T3SIM_SOURCE_DIR; }
inline std::filesystem::path models_dir() { return t3sim::testing::fixtures_dir() / "models"; }
inline std::filesystem::path shipped_models_dir() {
  return t3sim::testing::shipped_configs_dir() / "models";
}
inline std::filesystem::path samples_dir() { return source_dir() / "traces" / "samples"; }

// An empty folder for the running test's files, removed when it goes (a helper that makes its own
// while a test holds one passes another label).
struct ScratchDir : t3sim::testing::ScratchDir {
  explicit ScratchDir(const std::string& label = "workload") : t3sim::testing::ScratchDir(label) {}
};

}  // namespace t3sim::workload::testing

namespace t3sim::workload {

inline void PrintTo(const GemmShape& s, std::ostream* os) {
  *os << s.m << "x" << s.n << "x" << s.k << " (batch " << s.batch << ")";
}

}  // namespace t3sim::workload
