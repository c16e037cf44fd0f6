#include "models/workload/trace.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "models/workload/layer_generator.h"
#include "sim/errors.h"
#include "sim/strict_json.h"
#include "tests/models/workload/test_support.h"

namespace t3sim::workload {
namespace {

using testing::models_dir;
using testing::samples_dir;
using testing::ScratchDir;

// The committed sample traces/samples/mtnlg_tp8_layer.json is this trace. Regenerate it with
// T3SIM_UPDATE_SAMPLES=1 ./t3sim_workload_tests --gtest_filter=Trace.GeneratedSample*
Trace mtnlg_sample() {
  return generate_layer(load_model_by_name("mt-nlg", models_dir()), {.tp = 8});
}

TEST(Trace, GeneratedSampleMatchesCommittedFile) {
  const auto path = samples_dir() / "mtnlg_tp8_layer.json";
  if (std::getenv("T3SIM_UPDATE_SAMPLES") != nullptr) write_trace(mtnlg_sample(), path);
  EXPECT_EQ(read_trace(path), mtnlg_sample());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), format_trace(mtnlg_sample()));
}

TEST(Trace, RoundTripThroughJsonTextAndFile) {
  for (const char* name : {"mega-gpt2", "palm", "llama3-70b"}) {
    for (bool sp : {false, true}) {
      const Trace trace = generate_layer(load_model_by_name(name, models_dir()),
                                         {.tp = 8, .sequence_parallel = sp, .layer_index = 2});
      EXPECT_EQ(parse_trace(to_json(trace), "mem"), trace) << name;
      EXPECT_EQ(parse_trace(nlohmann::json::parse(format_trace(trace)), "text"), trace) << name;
    }
  }
  Trace measured = read_trace(samples_dir() / "tiny.json");
  measured.ops[0].measured_us = 262.4 / 3.0;
  const ScratchDir dir;
  const auto path = dir / "out.json";
  write_trace(measured, path);
  EXPECT_EQ(read_trace(path), measured);
  const auto files = std::distance(std::filesystem::directory_iterator(path.parent_path()),
                                   std::filesystem::directory_iterator());
  EXPECT_EQ(files, 1);  // no temp file left behind
}

// write_trace streams its text in pieces of about 1 MiB: a trace several pieces long is written
// byte for byte as format_trace makes it, and reads back equal.
TEST(Trace, StreamedWriteEqualsTheFormattedText) {
  Trace big = read_trace(samples_dir() / "tiny.json");
  const Op first = big.ops.front();
  big.ops.clear();
  for (int i = 0; i < 30000; ++i) {
    Op op = first;
    op.id = "op" + std::to_string(i);
    op.name = std::string(40, 'n');
    op.deps.clear();
    if (i > 0) op.deps.push_back("op" + std::to_string(i - 1));
    big.ops.push_back(op);
  }
  const std::string text = format_trace(big);
  ASSERT_GT(text.size(), std::size_t{3} << 20) << "the trace should span several pieces";
  const ScratchDir dir;
  write_trace(big, dir / "big.json");
  std::ifstream in(dir / "big.json", std::ios::binary);
  std::stringstream written;
  written << in.rdbuf();
  EXPECT_EQ(written.str(), text);
  EXPECT_EQ(read_trace(dir / "big.json"), big);
  Trace empty = big;
  empty.ops.clear();
  write_trace(empty, dir / "empty.json");
  std::ifstream in2(dir / "empty.json", std::ios::binary);
  std::stringstream written2;
  written2 << in2.rdbuf();
  EXPECT_EQ(written2.str(), format_trace(empty));
}

TEST(Trace, TinySampleParses) {
  const Trace tiny = read_trace(samples_dir() / "tiny.json");
  ASSERT_EQ(tiny.ops.size(), 4u);
  EXPECT_EQ(tiny.ops[1].kind, OpKind::kAllReduce);
  EXPECT_EQ(tiny.ops[1].tp_group, 8);  // from metadata.tp
  EXPECT_EQ(tiny.ops[0].shape, (GemmShape{8192, 4256, 2128}));
  EXPECT_EQ(tiny.ops[3].duration_us, 5.0);
  EXPECT_FALSE(tiny.ops[2].dtype.has_value());
}

// Parses tiny.json edited by `edit`; returns the error (the test fails if there is none).
ConfigError parse_edited(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = read_json_file(samples_dir() / "tiny.json");
  edit(j);
  try {
    parse_trace(j, "edited.json");
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ConfigError";
  return ConfigError("", "", "");
}

bool contains(const ConfigError& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

TEST(Trace, UnknownKeyNamesOpPointerAndSuggestion) {
  const ConfigError e = parse_edited([](nlohmann::json& j) { j["ops"][1]["dep"] = {"fc2"}; });
  EXPECT_EQ(e.file(), "edited.json");
  EXPECT_EQ(e.pointer(), "/ops/1/dep");
  EXPECT_TRUE(contains(e, "op 'fc2.ar'")) << e.what();
  EXPECT_TRUE(contains(e, "did you mean 'deps'")) << e.what();
  const ConfigError top = parse_edited([](nlohmann::json& j) { j["opps"] = 1; });
  EXPECT_EQ(top.pointer(), "/opps");
  EXPECT_TRUE(contains(top, "did you mean 'ops'")) << top.what();
}

TEST(Trace, CycleIsReportedWithAnOpOnIt) {
  const ConfigError e = parse_edited([](nlohmann::json& j) { j["ops"][0]["deps"] = {"gap"}; });
  EXPECT_TRUE(contains(e, "cycle")) << e.what();
  EXPECT_TRUE(contains(e, "'fc2' -> 'gap' -> 'residual' -> 'fc2.ar' -> 'fc2'")) << e.what();
  EXPECT_TRUE(contains(e, "op 'fc2'")) << e.what();
  EXPECT_EQ(e.pointer(), "/ops/0/deps");
}

TEST(Trace, BadVersionSuggestsTheSupportedOne) {
  const ConfigError e = parse_edited([](nlohmann::json& j) { j["version"] = 2; });
  EXPECT_EQ(e.pointer(), "/version");
  EXPECT_TRUE(contains(e, "version 1")) << e.what();
  EXPECT_EQ(parse_edited([](nlohmann::json& j) { j.erase("version"); }).pointer(), "/version");
}

TEST(Trace, NegativeAndHugeSizesAreRejected) {
  const ConfigError m = parse_edited([](nlohmann::json& j) { j["ops"][0]["shape"]["m"] = -5; });
  EXPECT_EQ(m.pointer(), "/ops/0/shape/m");
  EXPECT_TRUE(contains(m, "op 'fc2'")) << m.what();
  const ConfigError b =
      parse_edited([](nlohmann::json& j) { j["ops"][1]["bytes"] = std::int64_t{1} << 50; });
  EXPECT_EQ(b.pointer(), "/ops/1/bytes");
  const ConfigError t = parse_edited([](nlohmann::json& j) { j["ops"][0]["measured_us"] = -1.0; });
  EXPECT_EQ(t.pointer(), "/ops/0/measured_us");
}

TEST(Trace, DuplicateIdAndMissingDep) {
  const ConfigError dup = parse_edited([](nlohmann::json& j) { j["ops"][2]["id"] = "fc2"; });
  EXPECT_EQ(dup.pointer(), "/ops/2/id");
  EXPECT_TRUE(contains(dup, "duplicate")) << dup.what();
  EXPECT_TRUE(contains(dup, "'fc2'")) << dup.what();
  const ConfigError missing =
      parse_edited([](nlohmann::json& j) { j["ops"][2]["deps"] = {"fc2.arr"}; });
  EXPECT_EQ(missing.pointer(), "/ops/2/deps/0");
  EXPECT_TRUE(contains(missing, "op 'residual'")) << missing.what();
  EXPECT_TRUE(contains(missing, "did you mean 'fc2.ar'")) << missing.what();
}

TEST(Trace, PayloadMustMatchKind) {
  EXPECT_EQ(parse_edited([](nlohmann::json& j) { j["ops"][0]["bytes"] = 4; }).pointer(),
            "/ops/0/bytes");
  EXPECT_EQ(parse_edited([](nlohmann::json& j) { j["ops"][0].erase("shape"); }).pointer(),
            "/ops/0/shape");
  EXPECT_EQ(parse_edited([](nlohmann::json& j) { j["ops"][0].erase("dtype"); }).pointer(),
            "/ops/0/dtype");
  EXPECT_EQ(parse_edited([](nlohmann::json& j) { j["ops"][3]["kind"] = "fixd"; }).pointer(),
            "/ops/3/kind");
  const ConfigError group = parse_edited([](nlohmann::json& j) { j["metadata"].erase("tp"); });
  EXPECT_EQ(group.pointer(), "/ops/1/tp_group");
  EXPECT_EQ(parse_edited([](nlohmann::json& j) { j["ops"][1]["stream"] = -1; }).pointer(),
            "/ops/1/stream");
}

// Send and recv name their peer as an offset in the group (required, 1..group-1); broadcast and
// reduce may name a root; neither key applies to other kinds. Each survives a round trip.
TEST(Trace, PointToPointPeersAndRootsAreRanksOfTheGroup) {
  nlohmann::json j = read_json_file(samples_dir() / "tiny.json");
  j["ops"][1]["kind"] = "send";
  j["ops"][1]["peer"] = 1;
  j["ops"].push_back({{"id", "r"},
                      {"kind", "recv"},
                      {"bytes", 64},
                      {"dtype", "fp32"},
                      {"stream", 2},
                      {"peer", 7}});
  j["ops"].push_back({{"id", "b"},
                      {"kind", "broadcast"},
                      {"bytes", 64},
                      {"dtype", "fp32"},
                      {"stream", 2},
                      {"root", 3}});
  j["ops"].push_back(
      {{"id", "x"}, {"kind", "all_to_all"}, {"bytes", 64}, {"dtype", "fp32"}, {"stream", 2}});
  const Trace t = parse_trace(j, "p2p.json");
  EXPECT_EQ(t.ops[1].kind, OpKind::kSend);
  EXPECT_EQ(t.ops[1].peer, 1);
  EXPECT_EQ(t.ops[4].peer, 7);
  EXPECT_EQ(t.ops[5].root, 3);
  EXPECT_EQ(t.ops[6].tp_group, 8);
  EXPECT_EQ(parse_trace(to_json(t), "again"), t);
  const auto pointer_of = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json e = j;
    edit(e);
    try {
      parse_trace(e, "p2p.json");
    } catch (const ConfigError& error) {
      return error.pointer();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(pointer_of([](nlohmann::json& e) { e["ops"][1].erase("peer"); }), "/ops/1/peer");
  EXPECT_EQ(pointer_of([](nlohmann::json& e) { e["ops"][1]["peer"] = 8; }), "/ops/1/peer");
  EXPECT_EQ(pointer_of([](nlohmann::json& e) { e["ops"][1]["peer"] = 0; }), "/ops/1/peer");
  EXPECT_EQ(pointer_of([](nlohmann::json& e) { e["ops"][5]["root"] = 8; }), "/ops/5/root");
  EXPECT_EQ(pointer_of([](nlohmann::json& e) { e["ops"][6]["peer"] = 1; }), "/ops/6/peer");
  EXPECT_EQ(pointer_of([](nlohmann::json& e) { e["ops"][6]["root"] = 0; }), "/ops/6/root");
}

}  // namespace
}  // namespace t3sim::workload
