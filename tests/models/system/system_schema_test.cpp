// --set on system configs (models/system/system_schema.h): a key that the models declare but the
// file leaves out can be set, and then binds as if the file had it; an undeclared key is refused
// naming it before anything runs.
#include "models/system/system_schema.h"

#include <gtest/gtest.h>

#include "models/system/system.h"
#include "sim/errors.h"
#include "tests/support/fixtures.h"

namespace t3sim::system {
namespace {

const std::filesystem::path kConfigs = t3sim::testing::fixtures_dir();

TEST(SystemSchema, KnowsTheDeclaredKeysOfEachObject) {
  EXPECT_TRUE(system_declares("/gpus"));
  EXPECT_TRUE(system_declares("/hbm/fidelity"));
  EXPECT_TRUE(system_declares("/fabric/local_latency"));
  EXPECT_TRUE(system_declares("/fabric/link/credits"));
  EXPECT_TRUE(system_declares("/fabric/switch/port_bandwidth"));
  EXPECT_TRUE(system_declares("/gpu/dma/window"));
  EXPECT_FALSE(system_declares("/fabric/link/credit"));
  EXPECT_TRUE(system_declares("/hbm"));  // a key of the root (binding checks its type)
  EXPECT_FALSE(system_declares("/nosuch/key"));
  EXPECT_FALSE(system_declares("/hbm/"));
}

TEST(SystemSchema, SetAddsADeclaredKeyTheFileOmits) {
  const auto configs = kConfigs;
  const ConfigDoc base = load_system_config("t3-ring-8", configs);
  ASSERT_FALSE(base.root["fabric"].contains("local_latency")) << "pick another omitted key";
  const ConfigDoc doc = load_system_config("t3-ring-8", configs, {"fabric.local_latency=5 ns"});
  EXPECT_EQ(doc.root["fabric"]["local_latency"], "5 ns");
  EXPECT_EQ(system_gpus(doc), 8);  // binds
  try {
    load_system_config("t3-ring-8", configs, {"fabric.local_latncy=5 ns"});
    FAIL() << "an undeclared key was added";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("no such key 'local_latncy'"), std::string::npos)
        << e.what();
    EXPECT_EQ(e.pointer(), "/fabric/local_latncy");
  }
}

}  // namespace
}  // namespace t3sim::system
