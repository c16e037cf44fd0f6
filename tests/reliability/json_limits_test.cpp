// Deeply nested and oversized JSON. The real readers (load_config, read_trace,
// the Kineto path, --set values) must answer a 100000-deep document and a 1 GiB file with a
// ConfigError; each such call runs in a child process (EXPECT_EXIT), so a stack overflow fails
// that test instead of killing the suite. The 1 GiB file is sparse: no gigabyte is written or
// read. The limits live in sim/json_file.h, checked here on their own as well.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/workload/kineto_import.h"
#include "models/workload/trace.h"
#include "sim/config.h"
#include "sim/errors.h"
#include "sim/json_file.h"
#include "sim/params.h"
#include "sim/strict_json.h"
#include "tests/reliability/rejects.h"
#include "tests/support/scratch_dir.h"

namespace t3sim::reliability {
namespace {

namespace fs = std::filesystem;

constexpr int kDeep = 100'000;

std::string nested_arrays(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// Runs `body` in the death-test child: exit 0 on a ConfigError, 2 on another exception, 3 when
// nothing was thrown; a crash (stack overflow) ends the child by a signal or a sanitizer report.
template <typename F>
[[noreturn]] void exit_with_outcome(F&& body) {
  try {
    body();
  } catch (const ConfigError& e) {
    std::_Exit(0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception: %s\n", e.what());
    std::_Exit(2);
  }
  std::fprintf(stderr, "accepted: no ConfigError\n");
  std::_Exit(3);
}

#define EXPECT_CONFIG_ERROR_IN_CHILD(body) \
  EXPECT_EXIT(exit_with_outcome([&] { body; }), ::testing::ExitedWithCode(0), "")

class JsonLimits : public ::testing::Test {
 protected:
  void SetUp() override { ::testing::GTEST_FLAG(death_test_style) = "threadsafe"; }
  fs::path write(const std::string& name, const std::string& text) const {
    std::FILE* f = std::fopen((dir_ / name).c_str(), "wb");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return dir_ / name;
  }
  // A sparse file of `bytes` that starts like a config: no disk blocks behind the hole.
  fs::path sparse(const std::string& name, uintmax_t bytes) const {
    const fs::path p = write(name, "{\"kind\": \"system\", \"name\": \"");
    fs::resize_file(p, bytes);
    return p;
  }
  // Kept, not emptied, when made: a death test's child runs the test again in this folder.
  const t3sim::testing::ScratchDir dir_{"json_limits", true};
};

TEST_F(JsonLimits, ReaderRefusesDeepNestingAndHugeFiles) {
  EXPECT_TRUE(rejects<ConfigError>(
      [&] { read_json_file(write("deep.json", "{\"a\": " + nested_arrays(kDeep) + "}")); },
      "nested deeper than 256 levels"));
  EXPECT_TRUE(rejects<ConfigError>([&] { read_json_file(sparse("big.json", uintmax_t{1} << 30)); },
                                   "at most 256 MiB"));
  const fs::path ok = write("ok.json", "{\"a\": " + nested_arrays(kMaxJsonDepth - 1) + "}");
  EXPECT_EQ(read_json_file(ok), nlohmann::json::parse(std::ifstream(ok)));
  for (const auto& e : fs::recursive_directory_iterator(fixtures_env().configs_dir)) {
    if (e.path().extension() != ".json") continue;
    EXPECT_EQ(read_json_file(e.path()), nlohmann::json::parse(std::ifstream(e.path()))) << e.path();
  }
}

// The error names the file, a JSON pointer into the deep value (its first levels) and the limit.
TEST_F(JsonLimits, DepthErrorNamesFileAndPointer) {
  const fs::path p =
      write("deep.json", "{\"x\": 1, \"a\": [0, {\"b~/\": " + nested_arrays(kDeep) + "}]}");
  try {
    read_json_file(p);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), p.string());
    EXPECT_EQ(e.pointer(), "/a/1/b~0~1/0/0/0/0/0");
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_TRUE(rejects<ConfigError>([] { try_parse_json(nested_arrays(kDeep), "--set", "/q"); },
                                   "--set: /q/0/0"));
  EXPECT_EQ(try_parse_json("[1, 2", "--set", "/q"), std::nullopt);
}

TEST_F(JsonLimits, DeepConfigFile) {
  const fs::path p =
      write("deep.json", "{\"kind\": \"system\", \"a\": " + nested_arrays(kDeep) + "}");
  EXPECT_CONFIG_ERROR_IN_CHILD(load_config(p, {fixtures_env().configs_dir}));
}

TEST_F(JsonLimits, DeepTraceFile) {
  const fs::path p = write("deep.json", "{\"version\": " + nested_arrays(kDeep) + ", \"ops\": []}");
  EXPECT_CONFIG_ERROR_IN_CHILD(workload::read_trace(p));
}

TEST_F(JsonLimits, DeepKinetoFile) {
  const fs::path p = write("deep.json",
                           "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", "
                           "\"name\": " +
                               nested_arrays(kDeep) + "}]}");
  EXPECT_CONFIG_ERROR_IN_CHILD(workload::import_kineto(read_json_file(p), p.string()));
}

TEST_F(JsonLimits, DeepOverrideValue) {
  // An argument may be up to 128 KiB (MAX_ARG_STRLEN): 65536 levels of "[]".
  ConfigDoc doc = config_from_json({{"read_queue", 64}}, "doc.json");
  EXPECT_CONFIG_ERROR_IN_CHILD({
    apply_override(doc, "read_queue=" + nested_arrays(65'536));
    Params p;
    p.required("read_queue", ParamKind::kInt, "queue");
    bind(p, ConfigNode::root(doc));
  });
}

TEST_F(JsonLimits, GigabyteConfigAndTraceFiles) {
  const fs::path p = sparse("big.json", uintmax_t{1} << 30);
  EXPECT_TRUE(rejects<ConfigError>([&] { load_config(p); }, "MiB"));
  // Traces are streamed, not capped: a gigabyte of NULs is refused at its first byte.
  EXPECT_TRUE(rejects<ConfigError>([&] { workload::read_trace(p); }, "JSON"));
  EXPECT_TRUE(rejects<ConfigError>([&] { read_json_file(p); }, "MiB"));
}

// "[{},{},...]": 3 bytes of text per value, ~100 bytes of memory once parsed.
std::string empty_objects(size_t n) {
  std::string text = "[";
  text.reserve(3 * n + 2);
  for (size_t i = 0; i < n; ++i) text += i == 0 ? "{}" : ",{}";
  return text + "]";
}

// Bytes alone do not bound memory: 12 MiB of empty objects (far under the 256 MiB file limit)
// would take ~400 MB parsed; the check pass refuses it before the parse allocates anything, with
// the pointer of the value where the estimate crossed the limit. A smaller document of the same
// shape reads as before.
TEST_F(JsonLimits, ManySmallValuesAreBoundedByMemoryNotBytes) {
  const std::string text = empty_objects(4'000'000);
  ASSERT_LT(text.size(), kMaxJsonFileBytes);
  const fs::path p = write("many.json", text);
  try {
    read_json_file(p);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), p.string());
    EXPECT_EQ(e.pointer().rfind("/", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("256 MiB of memory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("split it"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(rejects<ConfigError>([&] { load_config(p); }, "MiB of memory"));
  EXPECT_TRUE(rejects<ConfigError>([&] { workload::read_trace(p); }, "MiB of memory"));
  EXPECT_TRUE(rejects<ConfigError>([&] { try_parse_json(text, "--set", "/q"); }, "--set: /q/"));
  const std::string small = empty_objects(100'000);
  EXPECT_EQ(read_json_file(write("small.json", small)), nlohmann::json::parse(small));
}

// One long string is copied a few times while it is read and resolved: over 16 MiB is refused,
// by a scan of the text before the lexer copies it, naming its byte offset; 16 MiB is read.
TEST_F(JsonLimits, LongStringsAreRefused) {
  const std::string at_limit(std::size_t{16} << 20, 'x');  // sim/json_file.cpp's bound
  const fs::path p = write("long.json", "{\"a\": [1, \"" + at_limit + "y\"]}");
  EXPECT_TRUE(
      rejects<ConfigError>([&] { read_json_file(p); }, "a string at byte 10 is over 16 MiB"));
  EXPECT_EQ(read_json_file(write("ok.json", "[\"" + at_limit + "\"]"))[0].get<std::string>().size(),
            at_limit.size());
}

}  // namespace
}  // namespace t3sim::reliability
