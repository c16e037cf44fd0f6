// The topology table is the one list of topologies: `topology`'s allowed values, the keys of
// `t3sim describe fabric` and which topology refuses which key all come from its rows.
#include <gtest/gtest.h>

#include <string>

#include "fabric_test_util.h"
#include "models/fabric/builders.h"
#include "models/fabric/specs.h"

namespace t3sim::fabric {
namespace {

TEST(TopologyTable, NamesAndKeysComeFromTheRows) {
  const Params every = fabric_params();
  const ParamSpec* topology = every.find("topology");
  ASSERT_NE(topology, nullptr);
  EXPECT_EQ(topology->choices, topology_names());
  EXPECT_EQ(topology_names().size(), topology_kinds().size());
  for (const TopologyKind& k : topology_kinds()) {
    EXPECT_FALSE(k.help.empty()) << k.name;
    const Params own = own_params(k);
    for (const ParamSpec& s : own.specs()) {
      const ParamSpec* listed = every.find(s.name);
      ASSERT_NE(listed, nullptr) << k.name << "." << s.name;
      EXPECT_TRUE(listed->description.starts_with(std::string(k.name))) << listed->description;
      EXPECT_EQ(listed->choices, s.choices) << s.name;
    }
  }
  const ParamSpec* nodes = every.find("nodes");  // a shared key names the rows that need it
  ASSERT_NE(nodes, nullptr);
  EXPECT_NE(nodes->description.find("dragonfly"), std::string::npos) << nodes->description;
}

// Each row's own key, given to every other topology, is refused by name before anything else.
TEST(TopologyTable, AnotherTopologysKeyIsRefused) {
  for (const TopologyKind& owner : topology_kinds()) {
    const Params own = own_params(owner);
    for (const ParamSpec& s : own.specs()) {
      for (const TopologyKind& other : topology_kinds()) {
        if (own_params(other).find(s.name) != nullptr) continue;
        nlohmann::json cfg = testing::ring_cfg(4);
        cfg["topology"] = std::string(other.name);
        cfg[s.name] = 1;
        const std::string msg = testing::config_error(cfg);
        EXPECT_NE(msg.find("not used by topology '" + std::string(other.name) + "'"),
                  std::string::npos)
            << s.name << " on " << other.name << ": " << msg;
      }
    }
  }
}

}  // namespace
}  // namespace t3sim::fabric
