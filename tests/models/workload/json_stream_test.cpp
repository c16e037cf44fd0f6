// The streaming readers: elements streamed one by one equal the parsed document's; errors name the
// element's pointer; t3sim traces, Kineto imports and the timeline check read streamed give what
// the whole-document readers give.
#include "models/workload/json_stream.h"

#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>

#include "models/workload/kineto_import.h"
#include "models/workload/timeline_stream_check.h"
#include "models/workload/trace.h"
#include "sim/errors.h"
#include "sim/json_file.h"
#include "sim/timeline_check.h"
#include "tests/models/workload/test_support.h"

namespace t3sim::workload {
namespace {

using testing::samples_dir;
using testing::ScratchDir;

std::filesystem::path fixture(const std::string& name) {
  return t3sim::testing::fixtures_dir() / "traces" / name;
}

std::filesystem::path write(const ScratchDir& dir, const std::string& name,
                            const std::string& text) {
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}

// The message of the ConfigError `f` throws ("" when none).
template <class F>
std::string error_of(F f, std::string* pointer = nullptr) {
  try {
    f();
  } catch (const ConfigError& e) {
    if (pointer != nullptr) *pointer = e.pointer();
    return e.what();
  }
  return "";
}

TEST(JsonStream, ElementsAndMembersEqualTheParsedDocument) {
  const ScratchDir dir;
  const std::string text =
      R"({"a": {"x": [1, 2.5, "s"]}, "ops": [{"k": 1, "v": [true, null]}, 7, "long string )"
      R"(of more than sixteen chars", {"deep": {"er": [[{}]]}}], "z": -3})";
  const auto path = write(dir, "doc.json", text);
  const nlohmann::json whole = nlohmann::json::parse(text);
  std::vector<nlohmann::json> seen;
  std::vector<std::size_t> indices;
  const nlohmann::json rest = stream_json_object(
      path, "ops", [&](nlohmann::json& e, std::size_t i, const nlohmann::json& members) {
        EXPECT_TRUE(members.contains("a"));  // the members before the array
        EXPECT_FALSE(members.contains("z"));
        seen.push_back(e);
        indices.push_back(i);
      });
  ASSERT_EQ(seen.size(), 4u);
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i], whole["ops"][i]) << i;
    EXPECT_EQ(indices[i], i);
  }
  EXPECT_EQ(rest["a"], whole["a"]);
  EXPECT_EQ(rest["z"], whole["z"]);
  EXPECT_EQ(rest["ops"], nlohmann::json::array());  // present, streamed
  EXPECT_EQ(top_level_keys(path), (std::vector<std::string>{"a", "ops", "z"}));
}

TEST(JsonStream, ErrorsNameTheElement) {
  const ScratchDir dir;
  std::string at;
  const auto none = [](nlohmann::json&, std::size_t, const nlohmann::json&) {};
  const auto dup = write(dir, "dup.json", R"({"ops": [{}, {"a": 1, "a": 2}]})");
  EXPECT_NE(error_of([&] { stream_json_object(dup, "ops", none); }, &at).find("duplicate key"),
            std::string::npos);
  EXPECT_EQ(at, "/ops/1");
  const auto bad = write(dir, "bad.json", R"({"ops": [{}, {"a": ]})");
  EXPECT_NE(error_of([&] { stream_json_object(bad, "ops", none); }, &at).find("invalid JSON"),
            std::string::npos);
  EXPECT_EQ(at, "/ops/1");
  const auto big = write(dir, "big.json", R"({"x": 1e400, "ops": []})");
  EXPECT_NE(error_of([&] { stream_json_object(big, "ops", none); }, &at).find("range of a double"),
            std::string::npos);
  EXPECT_EQ(at, "/x");
  const auto deep =
      write(dir, "deep.json", "{\"ops\": [" + std::string(300, '[') + std::string(300, ']') + "]}");
  EXPECT_NE(error_of([&] { stream_json_object(deep, "ops", none); }).find("deeper than 256"),
            std::string::npos);
  EXPECT_FALSE(is_streamable_json(write(dir, "array.json", "[{}]")));
  EXPECT_FALSE(is_streamable_json(dir.path()));
  EXPECT_TRUE(is_streamable_json(write(dir, "object.json", "\n  {}")));
}

// A string longer than 16 MiB is refused while its bytes are read, naming its byte offset.
TEST(JsonStream, LongStringIsRefusedBeforeTheLexerHoldsIt) {
  const ScratchDir dir;
  const auto path =
      write(dir, "long.json", "{\"ops\": [\"" + std::string((16u << 20) + 1, 'x') + "\"]}");
  const std::string e = error_of([&] {
    stream_json_object(path, "ops", [](nlohmann::json&, std::size_t, const nlohmann::json&) {});
  });
  EXPECT_NE(e.find("a string at byte 9 is over 16 MiB"), std::string::npos) << e;
}

TEST(JsonStream, StreamedTraceEqualsTheParsedOne) {
  for (const char* name : {"mtnlg_tp8_layer.json", "tiny.json"}) {
    const auto path = samples_dir() / name;
    EXPECT_EQ(read_trace(path), parse_trace(read_json_file(path), path.string())) << name;
  }
}

// Ops before the metadata wait for its defaults (the all-reduce's tp_group from "tp").
TEST(JsonStream, TraceWithMetadataLastTakesItsDefaults) {
  const Trace t = read_trace(fixture("trace_metadata_last.json"));
  ASSERT_EQ(t.ops.size(), 2u);
  EXPECT_EQ(t.ops[1].tp_group, 8);
  EXPECT_EQ(t.metadata.source, "hand");
}

TEST(JsonStream, StreamedTraceErrorsNameTheOp) {
  const ScratchDir dir;
  std::string at;
  const auto path = write(dir, "t.json",
                          R"({"version": 1, "metadata": {}, "ops": [)"
                          R"({"id": "a", "kind": "fixed", "duration_us": 1, "stream": 0},)"
                          R"({"id": "b", "kind": "fixd", "stream": 0}]})");
  EXPECT_NE(error_of([&] { read_trace(path); }, &at).find("did you mean"), std::string::npos);
  EXPECT_EQ(at, "/ops/1/kind");
}

void expect_same_import(const std::filesystem::path& path) {
  const KinetoImport whole = import_kineto_profile(read_json_file(path), path.string());
  const KinetoImport streamed = import_kineto_file(path);
  EXPECT_EQ(streamed.trace, whole.trace) << path;
  EXPECT_EQ(to_json(streamed.summary), to_json(whole.summary)) << path;
}

TEST(JsonStream, StreamedKinetoImportEqualsTheWholeDocumentImport) {
  expect_same_import(samples_dir() / "kineto_tp_sublayer.json");
  const auto data = testing::source_dir() / "tests/models/workload/kineto_data";
  for (const char* name : {"hta_allreduce_input_dims.json", "hta_cuda_graph.json",
                           "hta_nccl_sizes.json", "hta_renumbered_ids.json"}) {
    expect_same_import(data / name);
  }
}

// Error pointers of a streamed import count every event of the file, not only those kept.
TEST(JsonStream, StreamedKinetoErrorsPointIntoTheFile) {
  const ScratchDir dir;
  const auto path =
      write(dir, "k.json",
            R"({"schemaVersion": 1, "traceEvents": [)"
            R"({"ph": "X", "cat": "python_function", "name": "f", "ts": 0, "dur": 1},)"
            R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 0}]})");
  std::string at;
  const std::string e = error_of([&] { import_kineto_file(path); }, &at);
  std::string whole_at;
  error_of([&] { import_kineto_profile(read_json_file(path), path.string()); }, &whole_at);
  EXPECT_EQ(at, whole_at) << e;
  EXPECT_EQ(at.rfind("/traceEvents/1", 0), 0u) << e;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(JsonStream, TimelineCheckGivesTheWholeDocumentVerdict) {
  for (const char* name :
       {"timeline_sorted.json", "timeline_unsorted_overlap.json", "timeline_bad_async.json"}) {
    const auto path = fixture(name);
    EXPECT_EQ(sorted(check_timeline_file(path)), sorted(check_timeline(read_json_file(path))))
        << name;
  }
  EXPECT_TRUE(check_timeline_file(fixture("timeline_sorted.json")).empty());
  EXPECT_EQ(check_timeline_file(fixture("timeline_unsorted_overlap.json")),
            (std::vector<std::string>{"pid 0 tid 1: slice 'b' partially overlaps 'a'"}));
  EXPECT_EQ(check_timeline_file(fixture("timeline_bad_async.json")).size(), 5u);
}

}  // namespace
}  // namespace t3sim::workload
