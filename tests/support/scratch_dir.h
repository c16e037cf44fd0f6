// A folder for one test's files: <gtest temp folder>/t3sim_<label>_<suite>.<test>, emptied when
// made and removed with everything in it when the object goes, so a test run leaves nothing
// behind. The name carries no process id: a death test's child (which runs the test again up to
// its death statement, in a process of its own) then writes into its parent's folder, which the
// parent removes, instead of leaving one of its own. Keep = true skips the emptying, for fixtures
// whose death-test children must not wipe what the parent wrote. Two scratch folders alive at once
// in one test need different labels: with the same one they would be the same folder.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace t3sim::testing {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& label, bool keep = false) : path_(name(label)) {
    if (!keep) std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;  // a destructor must not throw; a leftover folder is harmless
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  operator const std::filesystem::path&() const { return path_; }  // NOLINT: used as a path
  std::filesystem::path operator/(const std::filesystem::path& name) const { return path_ / name; }

 private:
  static std::filesystem::path name(const std::string& label) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string test =
        info == nullptr ? "outside" : std::string(info->test_suite_name()) + "." + info->name();
    return std::filesystem::path(::testing::TempDir()) / ("t3sim_" + label + "_" + test);
  }

  std::filesystem::path path_;
};

}  // namespace t3sim::testing
