// Contracts of sim/atomic_file.h: the file ends up with exactly the new content, replaces an old
// file, creates missing folders, leaves no temporary file behind, and reports failures as
// ConfigError (also without leaving a temporary file). Special files (FIFO, directory, character
// device) are refused and left as they were; a symbolic link is followed, the link kept and its
// target replaced with the temporary file beside the target; new files get 0666 less the umask.
#include "sim/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/errors.h"

namespace t3sim {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("t3sim_atomic_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  int entries() const {
    int n = 0;
    for ([[maybe_unused]] const auto& e : fs::recursive_directory_iterator(dir_)) ++n;
    return n;
  }
  bool any_tmp() const {
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      if (e.path().filename().string().find(".tmp") != std::string::npos) return true;
    }
    return false;
  }
  fs::path dir_;
};

TEST_F(AtomicFile, WritesTheContent) {
  const std::string content = std::string("{\"a\": 1}\n") + std::string(1, '\0') + "binary";
  write_file_atomic(dir_ / "out.json", content);
  EXPECT_EQ(read(dir_ / "out.json"), content);
  EXPECT_EQ(entries(), 1);
  EXPECT_FALSE(any_tmp());
}

TEST_F(AtomicFile, PiecesFromAProducerMakeTheWholeContent) {
  int calls = 0;
  write_file_atomic(dir_ / "out.json", [&](std::string& piece) {
    EXPECT_TRUE(piece.empty()) << "the piece is cleared before each call";
    piece = "piece " + std::to_string(calls) + "\n";
    return ++calls < 3;
  });
  EXPECT_EQ(read(dir_ / "out.json"), "piece 0\npiece 1\npiece 2\n");
  EXPECT_EQ(entries(), 1);
  EXPECT_FALSE(any_tmp());
}

TEST_F(AtomicFile, AProducerThatThrowsKeepsTheOldFileAndNoTemporary) {
  write_file_atomic(dir_ / "out.json", "old");
  int calls = 0;
  EXPECT_THROW(write_file_atomic(dir_ / "out.json",
                                 [&](std::string& piece) {
                                   if (++calls == 2) throw ConfigError("x", "/y", "z");
                                   piece = "partial";
                                   return true;
                                 }),
               ConfigError);
  EXPECT_EQ(read(dir_ / "out.json"), "old");
  EXPECT_EQ(entries(), 1);
  EXPECT_FALSE(any_tmp());
}

TEST_F(AtomicFile, ReplacesAnOldFile) {
  write_file_atomic(dir_ / "out.json", "a much longer old content that must disappear entirely");
  write_file_atomic(dir_ / "out.json", "new");
  EXPECT_EQ(read(dir_ / "out.json"), "new");
  EXPECT_EQ(entries(), 1);
  EXPECT_FALSE(any_tmp());
}

TEST_F(AtomicFile, CreatesMissingFolders) {
  write_file_atomic(dir_ / "a" / "b" / "stats.json", "{}");
  EXPECT_EQ(read(dir_ / "a" / "b" / "stats.json"), "{}");
  EXPECT_FALSE(any_tmp());
}

TEST_F(AtomicFile, EmptyContentMakesAnEmptyFile) {
  write_file_atomic(dir_ / "empty", "");
  EXPECT_TRUE(fs::exists(dir_ / "empty"));
  EXPECT_EQ(fs::file_size(dir_ / "empty"), 0U);
}

TEST_F(AtomicFile, ReplacingADirectoryFailsCleanly) {
  fs::create_directories(dir_ / "taken" / "child");
  try {
    write_file_atomic(dir_ / "taken", "x");
    FAIL() << "overwrote a directory";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("taken"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(dir_ / "taken" / "child"));
  EXPECT_FALSE(any_tmp());
}

TEST_F(AtomicFile, AFileWhereAFolderShouldBeFailsCleanly) {
  write_file_atomic(dir_ / "plain", "x");
  EXPECT_THROW(write_file_atomic(dir_ / "plain" / "inner.json", "y"), ConfigError);
  EXPECT_EQ(read(dir_ / "plain"), "x");
  EXPECT_FALSE(any_tmp());
}

// The message of the ConfigError that writing `path` throws ("" and a failure if none).
std::string refusal(const fs::path& path) {
  try {
    write_file_atomic(path, "x");
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "wrote " << path;
  return "";
}

TEST_F(AtomicFile, AFifoIsRefusedAndKept) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::string msg = refusal(fifo);  // would block forever if the FIFO were opened
  EXPECT_NE(msg.find("pipe"), std::string::npos) << msg;
  EXPECT_NE(msg.find("FIFO"), std::string::npos) << msg;
  EXPECT_NE(msg.find("name a regular file"), std::string::npos) << msg;
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
  EXPECT_EQ(entries(), 1);
  EXPECT_THROW(output_target(fifo), ConfigError);
}

TEST_F(AtomicFile, ALinkToAFifoIsRefused) {
  ASSERT_EQ(::mkfifo((dir_ / "pipe").c_str(), 0644), 0);
  fs::create_symlink("pipe", dir_ / "link");
  const std::string msg = refusal(dir_ / "link");
  EXPECT_NE(msg.find("links to"), std::string::npos) << msg;
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(dir_ / "pipe")));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "link")));
}

TEST_F(AtomicFile, ACharacterDeviceIsRefused) {
  if (!fs::is_character_file("/dev/null")) GTEST_SKIP() << "no /dev/null";
  EXPECT_NE(refusal("/dev/null").find("character device"), std::string::npos);
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(AtomicFile, ALinkIsFollowedAndKept) {
  fs::create_directories(dir_ / "real");
  write_file_atomic(dir_ / "real" / "out.csv", "old");
  fs::create_symlink(fs::path("real") / "out.csv", dir_ / "link.csv");
  write_file_atomic(dir_ / "link.csv", "new");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "link.csv")));
  EXPECT_EQ(read(dir_ / "real" / "out.csv"), "new");
  EXPECT_EQ(output_target(dir_ / "link.csv"), dir_ / "real" / "out.csv");
  EXPECT_EQ(entries(), 3);  // real/, real/out.csv, link.csv: no temporary file anywhere
  EXPECT_FALSE(any_tmp());
}

TEST_F(AtomicFile, ADanglingLinkCreatesItsTarget) {
  fs::create_symlink(dir_ / "sub" / "made.json", dir_ / "link.json");  // absolute, folder missing
  write_file_atomic(dir_ / "link.json", "{}");
  EXPECT_EQ(read(dir_ / "sub" / "made.json"), "{}");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "link.json")));
  EXPECT_FALSE(any_tmp());
}

TEST_F(AtomicFile, ALinkLoopIsRefused) {
  fs::create_symlink("b", dir_ / "a");
  fs::create_symlink("a", dir_ / "b");
  EXPECT_NE(refusal(dir_ / "a").find("symbolic links"), std::string::npos);
}

TEST_F(AtomicFile, NewFilesGetTheUmaskMode) {
  const mode_t old = ::umask(022);
  write_file_atomic(dir_ / "a.csv", "x");
  ::umask(077);
  write_file_atomic(dir_ / "b.csv", "x");
  ::umask(old);
  EXPECT_EQ(fs::status(dir_ / "a.csv").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                fs::perms::others_read);
  EXPECT_EQ(fs::status(dir_ / "b.csv").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

}  // namespace
}  // namespace t3sim
