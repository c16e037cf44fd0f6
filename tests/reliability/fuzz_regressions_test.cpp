// Regression tests for the fuzzer findings (tests/fuzz): each input that let an
// exception other than ConfigError/UsageError/UnitError escape, or broke an importer contract, is
// replayed here in its smallest form. The artifacts themselves are under tests/fuzz/regressions/.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "models/system/system.h"
#include "models/workload/kineto_import.h"
#include "models/workload/trace.h"
#include "sim/config.h"
#include "sim/errors.h"
#include "sim/params.h"
#include "studies/sweep_spec.h"
#include "tests/reliability/rejects.h"

namespace t3sim::reliability {
namespace {

using nlohmann::json;

// fuzz_config crash-940227cc: "--set gpus=\xac7" is not JSON, so apply_override stored the raw
// bytes as a string; binding then failed and formatting the message (json::dump) threw
// nlohmann::json::type_error 316 (invalid UTF-8) instead of a ConfigError.
TEST(FuzzRegressions, OverrideValueWithInvalidUtf8) {
  ConfigDoc doc = config_from_json({{"gpus", 8}}, "system.json");
  Params p;
  p.required("gpus", ParamKind::kInt, "GPUs");
  EXPECT_TRUE(rejects<ConfigError>(
      [&] {
        apply_override(doc,
                       "gpus=\xac"
                       "7");
        bind(p, ConfigNode::root(doc));
      },
      "gpus"));
}

// Found by reading apply_override while fixing the one above: a /-path with a '~' that is not
// "~0" or "~1" made nlohmann::json::json_pointer throw parse_error 108, and an array index with
// more digits than size_t holds made std::stoul throw std::out_of_range.
TEST(FuzzRegressions, OverridePathWithBadEscapeOrHugeIndex) {
  ConfigDoc doc = config_from_json({{"gpus", 8}, {"list", {1, 2}}}, "system.json");
  EXPECT_TRUE(rejects<ConfigError>([&] { apply_override(doc, "/gp~2us=4"); }, "~0"));
  EXPECT_TRUE(rejects<ConfigError>([&] { apply_override(doc, "list.99999999999999999999999=4"); },
                                   "no such key"));
  EXPECT_TRUE(rejects<ConfigError>([&] { apply_override(doc, "/=4"); }, "no such key ''"));
  apply_override(doc, "/list/1=5");
  EXPECT_EQ(doc.root.at("list"), json({1, 5}));
}

// fuzz_config crash-fd9789ec: an "extends" name longer than the OS allows for one file name
// (255 bytes) made std::filesystem::is_regular_file throw filesystem_error (ENAMETOOLONG) instead
// of the "cannot find" ConfigError; the same held for a --system name.
TEST(FuzzRegressions, ExtendsOrSystemNameTooLongForTheOs) {
  const std::string name = "presets" + std::string(300, 'B') + ".json";
  EXPECT_TRUE(rejects<ConfigError>(
      [&] {
        config_from_json({{"hbm", {{"extends", name}}}}, "long.json", {fixtures_env().configs_dir});
      },
      "cannot find"));
  EXPECT_TRUE(rejects<ConfigError>(
      [&] { system::load_system_config(std::string(300, 's'), fixtures_env().configs_dir, {}); },
      "unknown system"));
}

// fuzz_sweep crash-bdf906c4: the axis path "hbm=.bandwidth" made the path check's
// apply_override("hbm=.bandwidth=...") split at the first '=' and succeed, after which
// doc.root.at(json_pointer) threw nlohmann::json::out_of_range 403. Reading the path through
// nlohmann::json::json_pointer could also throw parse_error 108 ("~2") and out_of_range 410 (an
// index over 2^64); read_sweep now walks it with override_target.
TEST(FuzzRegressions, SweepAxisPathWithEqualsOrBadPointer) {
  const auto sweep = [](const std::string& path, const std::string& system = "t3-ring-8") {
    const json spec = {{"kind", "sweep"},
                       {"name", "fz"},
                       {"base", {{"system", system}, {"model", "t-nlg"}}},
                       {"axes", {{{"path", path}, {"values", {"1 TB/s", "2 TB/s"}}}}}};
    return studies::read_sweep(fixtures_env(), config_from_json(spec, "fz.json"));
  };
  EXPECT_TRUE(rejects<ConfigError>([&] { sweep("hbm=.bandwidth"); }, "/axes/0/path"));
  EXPECT_TRUE(rejects<ConfigError>([&] { sweep("/hbm/band~2width"); }, "unknown path"));
  EXPECT_TRUE(
      rejects<ConfigError>([&] { sweep("gpu.tiles.99999999999999999999999"); }, "unknown path"));
  EXPECT_EQ(sweep("hbm.bandwidth").points(), 2U);
}

json kernel(double ts, int64_t ext) {
  return {{"ph", "X"},
          {"cat", "kernel"},
          {"name", "gemm_kernel"},
          {"ts", ts},
          {"dur", 5.0},
          {"pid", 0},
          {"tid", 7},
          {"args", {{"External id", ext}, {"stream", 7}}}};
}

// fuzz_kineto crash-a7b5a82a: an event whose "ph" is a number made is_complete_event's
// e.value("ph", "") throw nlohmann::json::type_error 302. Such an event is simply not a complete
// event; the same holds for a launching cpu_op whose "name" is not a string.
TEST(FuzzRegressions, KinetoNonStringPhaseOrName) {
  const json bad_phase = {{"ph", 5003}, {"cat", "ac2g"}, {"name", "flow"}, {"ts", 1.0}};
  const json nameless_cpu = {{"ph", "X"}, {"cat", "cpu_op"}, {"name", 42},
                             {"ts", 0.0}, {"dur", 1.0},      {"args", {{"External id", 1}}}};
  const json chrome = {{"traceEvents", {bad_phase, nameless_cpu, kernel(10.0, 1)}}};
  workload::Trace t;
  try {
    t = workload::import_kineto(chrome, "regression.json");
  } catch (const std::exception& e) {
    FAIL() << "threw: " << e.what();
  }
  ASSERT_EQ(t.ops.size(), 1U);
  EXPECT_EQ(t.ops[0].kind, workload::OpKind::kFixed);
}

// Found by review with the fix above: an "Input type" that is not a list made types[i] throw
// nlohmann::json::type_error 305; it now reads as "no operand type" (a ConfigError naming it
// under --strict; a warning and a fixed op by default).
TEST(FuzzRegressions, KinetoInputTypeNotAList) {
  const json cpu = {
      {"ph", "X"},
      {"cat", "cpu_op"},
      {"name", "aten::mm"},
      {"ts", 0.0},
      {"dur", 1.0},
      {"args",
       {{"External id", 1}, {"Input Dims", {{8, 16}, {16, 32}}}, {"Input type", "c10::Half"}}}};
  const json chrome = {{"traceEvents", {cpu, kernel(10.0, 1)}}};
  EXPECT_TRUE(
      rejects<ConfigError>([&] { workload::import_kineto(chrome, "types.json", {.strict = true}); },
                           "/traceEvents/0/args/Input type/0"));
}

// Found by reading kineto_schema.cpp while triaging the fuzz run (the fuzzer did not construct it
// in 10 minutes): "Input Dims" entries may each be up to 2^40, and the batch/M products of
// matmul/linear overflowed int64 (undefined behaviour; in practice a negative or tiny GEMM). An
// imported trace must also satisfy parse_trace (sizes below 2^50).
TEST(FuzzRegressions, KinetoGemmDimensionProductOverflow) {
  const int64_t big = int64_t{1} << 40;
  const int64_t wide = int64_t{1} << 30;
  const std::vector<std::pair<std::string, json>> cases = {
      {"aten::matmul", {{big, big, 8, 16}, {16, 32}}},            // M = 8 x 2^80
      {"aten::linear", {{big, big, 16}, {32, 16}}},               // M = 2^80
      {"aten::matmul", {{big, big, 8, 16}, {big, big, 16, 32}}},  // batch = 2^80
      {"aten::linear", {{wide, wide, 16}, {32, 16}}},             // M = 2^60: no overflow, > 2^50
  };
  for (const auto& [op, dims] : cases) {
    const json cpu = {
        {"ph", "X"},
        {"cat", "cpu_op"},
        {"name", op},
        {"ts", 0.0},
        {"dur", 1.0},
        {"args",
         {{"External id", 1}, {"Input Dims", dims}, {"Input type", {"c10::Half", "c10::Half"}}}}};
    const json chrome = {{"traceEvents", {cpu, kernel(10.0, 1)}}};
    EXPECT_TRUE(rejects<ConfigError>(
        [&] { workload::import_kineto(chrome, "huge.json", {.strict = true}); }, "Input Dims"))
        << op << " " << dims.dump();
  }
}

}  // namespace
}  // namespace t3sim::reliability
