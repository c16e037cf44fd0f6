// Contracts of sim/config.h (with binding through sim/params.h): one test per error class, each
// message naming the file, the JSON pointer and the fix; "extends" (relative paths, nested objects,
// override order, origins, cycles); --set overrides; {"value", "source"} wrappers; annotations.
#include "sim/config.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/errors.h"
#include "sim/params.h"

namespace t3sim {
namespace {

namespace fs = std::filesystem;

Params hbm_params() {
  Params p;
  p.required("channels", ParamKind::kInt, "channels per stack").range(1, 64);
  p.optional("bw", ParamKind::kBandwidth, "900 GB/s", "peak bandwidth");
  p.optional("latency", ParamKind::kDuration, "100 ns", "access latency");
  return p;
}

class Config : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("t3sim_config_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }
  // Loads `file` and binds its "hbm" object; returns the ConfigError message ("" if none).
  static std::string bind_error(const ConfigDoc& doc) {
    try {
      bind(hbm_params(), ConfigNode::root(doc).child("hbm"));
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  }
  static void expect_has(const std::string& msg, const std::string& part) {
    EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' missing from: " << msg;
  }
  fs::path dir_;
};

TEST_F(Config, UnknownKeyNamesFilePointerAndSuggestion) {
  const fs::path f = write("sys.json", R"({"hbm": {"chanels": 8}})");
  const ConfigDoc doc = load_config(f);
  try {
    bind(hbm_params(), ConfigNode::root(doc).child("hbm"));
    FAIL() << "unknown key accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), f.string());
    EXPECT_EQ(e.pointer(), "/hbm/chanels");
    const std::string msg = e.what();
    expect_has(msg, f.string());
    expect_has(msg, "/hbm/chanels");
    expect_has(msg, "did you mean 'channels'");
  }
}

TEST_F(Config, UnknownKeyFarFromAnyNameSaysHowToListKeys) {
  const std::string msg = bind_error(load_config(write("s.json", R"({"hbm": {"zzzzzz": 1}})")));
  expect_has(msg, "unknown key 'zzzzzz'");
  EXPECT_EQ(msg.find("did you mean"), std::string::npos) << msg;
}

TEST_F(Config, MissingRequiredKey) {
  const fs::path f = write("s.json", R"({"hbm": {"bw": "1 TB/s"}})");
  const std::string msg = bind_error(load_config(f));
  expect_has(msg, f.string());
  expect_has(msg, "/hbm");
  expect_has(msg, "missing required key 'channels'");
  expect_has(msg, "channels per stack");  // the description tells what it is
}

TEST_F(Config, BadUnitForABandwidth) {
  const fs::path f = write("s.json", R"({"hbm": {"channels": 8, "bw": "1 TB"}})");
  const std::string msg = bind_error(load_config(f));
  expect_has(msg, f.string());
  expect_has(msg, "/hbm/bw");
  expect_has(msg, "unknown unit 'TB'");
  expect_has(msg, "GB/s");
}

TEST_F(Config, BareNumberForADimensionedValue) {
  const std::string msg =
      bind_error(load_config(write("s.json", R"({"hbm": {"channels": 8, "latency": 500}})")));
  expect_has(msg, "/hbm/latency");
  expect_has(msg, "bare number");
  expect_has(msg, "500 ns");  // the example of the expected form
}

TEST_F(Config, OutOfRange) {
  const std::string msg = bind_error(load_config(write("s.json", R"({"hbm": {"channels": 65}})")));
  expect_has(msg, "/hbm/channels");
  expect_has(msg, "out of range");
  expect_has(msg, "<= 64");
}

TEST_F(Config, WrongType) {
  const std::string msg =
      bind_error(load_config(write("s.json", R"({"hbm": {"channels": "eight"}})")));
  expect_has(msg, "/hbm/channels");
  expect_has(msg, "must be a integer");
  EXPECT_NE(bind_error(load_config(write("t.json", R"({"hbm": {"channels": 8.5}})"))), "");
}

TEST_F(Config, InvalidJsonAndMissingFiles) {
  EXPECT_THROW(load_config(write("bad.json", R"({"hbm": )")), ConfigError);
  EXPECT_THROW(load_config(dir_ / "nope.json"), ConfigError);
  EXPECT_THROW(load_config(write("arr.json", "[1, 2]")), ConfigError);  // top must be an object
}

TEST_F(Config, ExtendsMergesWithOwnKeysWinning) {
  write("base.json",
        R"({"name": "base", "hbm": {"channels": 8, "bw": "900 GB/s"}, "list": [1, 2]})");
  const fs::path top =
      write("top.json", R"({"extends": "base.json", "hbm": {"channels": 16}, "list": [3]})");
  const ConfigDoc doc = load_config(top);
  EXPECT_EQ(doc.root["name"], "base");
  EXPECT_EQ(doc.root["hbm"]["channels"], 16);
  EXPECT_EQ(doc.root["hbm"]["bw"], "900 GB/s");  // deep merge keeps the base's other keys
  EXPECT_EQ(doc.root["list"], nlohmann::json::array({3}));  // arrays replace
  EXPECT_FALSE(doc.root.contains("extends"));
  EXPECT_EQ(doc.origin.at("/hbm/channels"), top.string());
  EXPECT_EQ(doc.origin.at("/hbm/bw"), (dir_ / "base.json").string());
  const BoundParams p = bind(hbm_params(), ConfigNode::root(doc).child("hbm"));
  EXPECT_EQ(p.integer("channels"), 16);
  EXPECT_EQ(p.bandwidth("bw").bytes_per_second(), 900'000'000'000ULL);
}

TEST_F(Config, ErrorsInAnInheritedValueNameTheBaseFile) {
  const fs::path base = write("presets/hbm3.json", R"({"channels": 8, "bw": "1 TB"})");
  const fs::path top = write("sys.json", R"({"hbm": {"extends": "presets/hbm3.json"}})");
  const ConfigDoc doc = load_config(top);
  const std::string msg = bind_error(doc);
  expect_has(msg, base.string());
  EXPECT_EQ(msg.find(top.string()), std::string::npos) << msg;
  expect_has(msg, "/hbm/bw");
}

TEST_F(Config, NestedExtendsResolveRelativeToTheIncludingFile) {
  // sys.json -> presets/gpu.json -> (beside it) hbm.json
  write("presets/hbm.json", R"({"channels": 8, "latency": "120 ns"})");
  write("presets/gpu.json", R"({"cus": 80, "hbm": {"extends": "hbm.json", "channels": 16}})");
  const fs::path top = write("sys.json", R"({"gpu": {"extends": "presets/gpu.json", "cus": 108}})");
  const ConfigDoc doc = load_config(top);
  EXPECT_EQ(doc.root["gpu"]["cus"], 108);
  EXPECT_EQ(doc.root["gpu"]["hbm"]["channels"], 16);
  EXPECT_EQ(doc.root["gpu"]["hbm"]["latency"], "120 ns");
  EXPECT_EQ(doc.origin.at("/gpu/cus"), top.string());
  EXPECT_EQ(doc.origin.at("/gpu/hbm/channels"), (dir_ / "presets/gpu.json").string());
  EXPECT_EQ(doc.origin.at("/gpu/hbm/latency"), (dir_ / "presets/hbm.json").string());
  EXPECT_EQ(ConfigNode::root(doc).child("gpu").child("hbm").child("latency").file(),
            (dir_ / "presets/hbm.json").string());
}

TEST_F(Config, ExtendsListAppliesInOrder) {
  write("a.json", R"({"x": "a", "y": "a", "z": "a"})");
  write("b.json", R"({"y": "b", "z": "b"})");
  const ConfigDoc doc =
      load_config(write("top.json", R"({"extends": ["a.json", "b.json"], "z": "top"})"));
  EXPECT_EQ(doc.root["x"], "a");
  EXPECT_EQ(doc.root["y"], "b");  // later bases override earlier ones
  EXPECT_EQ(doc.root["z"], "top");
}

TEST_F(Config, ExtendsSearchesTheConfigFolders) {
  const fs::path lib = dir_ / "lib";
  write("lib/presets/link.json", R"({"bw": "50 GB/s"})");
  const fs::path top = write("exp/top.json", R"({"extends": "presets/link.json"})");
  EXPECT_THROW(load_config(top), ConfigError);
  const ConfigDoc doc = load_config(top, {lib});
  EXPECT_EQ(doc.root["bw"], "50 GB/s");
}

TEST_F(Config, MissingBaseFileIsAConfigError) {
  const fs::path top = write("top.json", R"({"hbm": {"extends": "hbm4.json"}})");
  try {
    load_config(top);
    FAIL() << "missing base accepted";
  } catch (const ConfigError& e) {
    expect_has(e.what(), "cannot find 'hbm4.json'");
    EXPECT_EQ(e.pointer(), "/hbm/extends");
  }
  EXPECT_THROW(load_config(write("t2.json", R"({"extends": 5})")), ConfigError);
}

TEST_F(Config, ExtendsCycleIsDetected) {
  write("a.json", R"({"extends": "b.json", "x": 1})");
  write("b.json", R"({"extends": "a.json", "y": 2})");
  EXPECT_THROW(load_config(dir_ / "a.json"), ConfigError);
  write("self.json", R"({"extends": "self.json"})");
  EXPECT_THROW(load_config(dir_ / "self.json"), ConfigError);
}

TEST_F(Config, SetOverridesAnExistingKey) {
  ConfigDoc doc = load_config(write("s.json", R"({"hbm": {"channels": 8, "bw": "900 GB/s"}})"));
  apply_override(doc, "hbm.channels=32");
  EXPECT_EQ(doc.root["hbm"]["channels"], 32);  // parsed as a JSON number
  EXPECT_TRUE(doc.root["hbm"]["channels"].is_number_integer());
  apply_override(doc, "/hbm/bw=1.2 TB/s");  // not JSON -> a string
  EXPECT_EQ(doc.root["hbm"]["bw"], "1.2 TB/s");
  apply_override(doc, "hbm.channels=\"16\"");  // a JSON string stays a string
  EXPECT_EQ(doc.root["hbm"]["channels"], "16");
  EXPECT_EQ(ConfigNode::root(doc).child("hbm").child("bw").file(), "--set");
  EXPECT_EQ(doc.origin.at("/hbm/channels"), "--set");
}

TEST_F(Config, SetRejectsUnknownKeysWithASuggestion) {
  ConfigDoc doc = load_config(write("s.json", R"({"hbm": {"channels": 8}})"));
  try {
    apply_override(doc, "hbm.chanels=4");
    FAIL() << "override of a missing key accepted";
  } catch (const ConfigError& e) {
    expect_has(e.what(), "no such key 'chanels'");
    expect_has(e.what(), "did you mean 'channels'");
    EXPECT_EQ(e.pointer(), "/hbm/chanels");
  }
  EXPECT_THROW(apply_override(doc, "gpu.cus=80"), ConfigError);
  EXPECT_THROW(apply_override(doc, "hbm.channels"), ConfigError);  // no '='
  EXPECT_THROW(apply_override(doc, "=4"), ConfigError);
  EXPECT_EQ(doc.root["hbm"]["channels"], 8);  // untouched by the failures
}

TEST_F(Config, SetIndexesArrays) {
  ConfigDoc doc = load_config(write("s.json", R"({"gpus": [{"cus": 80}, {"cus": 80}]})"));
  apply_override(doc, "gpus.1.cus=108");
  EXPECT_EQ(doc.root["gpus"][0]["cus"], 80);
  EXPECT_EQ(doc.root["gpus"][1]["cus"], 108);
  EXPECT_THROW(apply_override(doc, "gpus.2.cus=1"), ConfigError);
}

TEST_F(Config, SetIntoAValueWrapperKeepsTheSource) {
  ConfigDoc doc = load_config(
      write("s.json", R"({"hbm": {"channels": 8, "bw": {"value": "900 GB/s", "source": "ds"}}})"));
  apply_override(doc, "hbm.bw=1 TB");
  EXPECT_EQ(doc.root["hbm"]["bw"]["value"], "1 TB");
  EXPECT_EQ(doc.root["hbm"]["bw"]["source"], "ds");
  // The bad value is blamed on --set, not on the file that held the wrapper.
  std::string msg = bind_error(doc);
  expect_has(msg, "--set");
  expect_has(msg, "unknown unit 'TB'");
  apply_override(doc, "hbm.bw=5");
  msg = bind_error(doc);
  expect_has(msg, "--set: /hbm/bw/value");
  expect_has(msg, "bare number");
}

TEST_F(Config, ValueWrappersAreUnwrapped) {
  const ConfigDoc doc = load_config(write("s.json", R"({"hbm": {
      "channels": {"value": 8, "source": "JESD238"},
      "bw": {"value": "819 GB/s", "source": {"url": "datasheet"}, "$note": "per stack"}}})"));
  const BoundParams p = bind(hbm_params(), ConfigNode::root(doc).child("hbm"));
  EXPECT_EQ(p.integer("channels"), 8);
  EXPECT_EQ(p.bandwidth("bw").bytes_per_second(), 819'000'000'000ULL);
  EXPECT_EQ(p.resolved()["channels"], 8);  // the resolved config holds the plain value
}

TEST_F(Config, ValueWrappersAreStrictToo) {
  const std::string msg = bind_error(
      load_config(write("s.json", R"({"hbm": {"channels": {"value": 8, "sorce": "JESD238"}}})")));
  expect_has(msg, "/hbm/channels/sorce");
  expect_has(msg, "unknown key 'sorce'");
}

TEST_F(Config, AnnotationKeysAreIgnored) {
  const ConfigDoc doc = load_config(write("s.json", R"({"hbm": {
      "channels": 8, "source": "JESD238", "description": "HBM3 stack", "$comment": "x"}})"));
  EXPECT_EQ(bind_error(doc), "");
  EXPECT_TRUE(is_annotation_key("source"));
  EXPECT_TRUE(is_annotation_key("description"));
  EXPECT_TRUE(is_annotation_key("$anything"));
  EXPECT_FALSE(is_annotation_key("sources"));
  EXPECT_FALSE(is_annotation_key(""));
}

TEST_F(Config, ConfigFromJsonLabelsErrorsWithItsName) {
  const ConfigDoc doc = config_from_json({{"hbm", {{"chanels", 8}}}}, "<builtin>");
  const std::string msg = bind_error(doc);
  expect_has(msg, "<builtin>");
  expect_has(msg, "/hbm/chanels");
}

TEST_F(Config, NodeNavigation) {
  const ConfigDoc doc = config_from_json({{"a", {{"b~c/d", {1, 2, 3}}}}}, "mem");
  const ConfigNode a = ConfigNode::root(doc).child("a");
  EXPECT_TRUE(a.has("b~c/d"));
  EXPECT_FALSE(a.has("x"));
  const ConfigNode arr = a.child("b~c/d");
  EXPECT_EQ(arr.pointer(), "/a/b~0c~1d");  // RFC 6901 escaping
  EXPECT_EQ(arr.size(), 3U);
  EXPECT_EQ(arr.at(2).json(), 3);
  EXPECT_EQ(arr.at(2).pointer(), "/a/b~0c~1d/2");
  EXPECT_THROW(arr.at(3), ConfigError);
  EXPECT_THROW(a.child("x"), ConfigError);
}

TEST(ConfigHelpers, ToJsonPointer) {
  EXPECT_EQ(to_json_pointer("a.b.c"), "/a/b/c");
  EXPECT_EQ(to_json_pointer("/a/b"), "/a/b");
  EXPECT_EQ(to_json_pointer("gpus.0.cus"), "/gpus/0/cus");
  EXPECT_EQ(to_json_pointer("x"), "/x");
  EXPECT_EQ(to_json_pointer("a/b.c"), "/a~1b/c");
}

TEST(ConfigHelpers, NearestName) {
  const std::vector<std::string> names{"channels", "banks", "bandwidth"};
  EXPECT_EQ(nearest_name("chanels", names), "channels");
  EXPECT_EQ(nearest_name("bnks", names), "banks");
  EXPECT_EQ(nearest_name("bandwith", names), "bandwidth");
  EXPECT_EQ(nearest_name("xyzzy", names), "");
  EXPECT_EQ(nearest_name("anything", {}), "");
}

// --set may add a key the file omits when the schema declares it (system::system_declares for
// systems): only the last key, only in an existing object; an undeclared key is still refused.
TEST_F(Config, SetAddsAKeyTheSchemaDeclares) {
  ConfigDoc doc = load_config(write("s.json", R"({"hbm": {"channels": 8}, "list": [1]})"));
  const KeyDeclared declared = [](const std::string& p) { return p == "/hbm/fidelity"; };
  apply_override(doc, "hbm.fidelity=bank", declared);
  EXPECT_EQ(doc.root["hbm"]["fidelity"], "bank");
  EXPECT_EQ(doc.origin.at("/hbm/fidelity"), "--set");
  try {
    apply_override(doc, "hbm.fidelty=bank", declared);
    FAIL() << "an undeclared key was added";
  } catch (const ConfigError& e) {
    expect_has(e.what(), "did you mean 'fidelity'");
  }
  const KeyDeclared anything = [](const std::string&) { return true; };
  EXPECT_THROW(apply_override(doc, "gpu.cus=80", anything), ConfigError);  // no "gpu" object
  EXPECT_THROW(apply_override(doc, "list.3=1", anything), ConfigError);    // arrays do not grow
  EXPECT_THROW(apply_override(doc, "hbm.update=nmc"), ConfigError) << "no schema: must exist";
}

}  // namespace
}  // namespace t3sim
