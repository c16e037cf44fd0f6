// Input limits, one test per class: every out-of-range input is a clear
// ConfigError/UsageError, never a hang, an out-of-memory, a crash or a silently wrapped value.
// Classes: TP degree, token count, zero bandwidth, tracker capacity, huge unit values (text and
// JSON numbers), integers that do not fit the field they configure.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cli/common.h"
#include "models/collectives/library.h"
#include "models/fabric/specs.h"
#include "models/gpu/dma_engine.h"
#include "models/gpu/gpu_spec.h"
#include "models/hbm/hbm_config.h"
#include "models/system/sublayer.h"
#include "models/system/system.h"
#include "models/tracker/tracker.h"
#include "sim/config.h"
#include "sim/errors.h"
#include "sim/params.h"
#include "sim/units_parse.h"
#include "studies/sweep_spec.h"
#include "tests/reliability/rejects.h"

namespace t3sim::reliability {
namespace {

using nlohmann::json;

ConfigDoc doc_of(const json& j) {
  return config_from_json(j, "limits.json", {fixtures_env().configs_dir});
}

ConfigDoc sweep_with_axis(const std::string& path, const json& values) {
  return doc_of({{"kind", "sweep"},
                 {"name", "limits"},
                 {"base", {{"system", "t3-ring-8"}, {"model", "t-nlg"}}},
                 {"axes", json::array({{{"path", path}, {"values", values}}})}});
}

TEST(InputLimits, TpZeroAndOneBillion) {
  const cli::Env env = fixtures_env();
  EXPECT_TRUE(rejects<ConfigError>([&] { cli::choose_sublayer(env, "t-nlg", 0, "fc2", 0); },
                                   "tp 0 is outside"));
  EXPECT_TRUE(rejects<ConfigError>(
      [&] { cli::choose_sublayer(env, "t-nlg", 1'000'000'000, "fc2", 0); }, "outside [1, 4096]"));
  EXPECT_TRUE(rejects<UsageError>([&] { cli::load_system(env, "t3-ring-8", {}, 1'000'000'000); },
                                  "out of range"));
  // tp 0 means "keep the system's GPU count" (common.h contract).
  EXPECT_EQ(cli::load_system(env, "t3-ring-8", {}, 0).root.at("gpus"), 8);
  for (const int tp : {0, 1'000'000'000}) {
    EXPECT_TRUE(rejects<ConfigError>([&] { studies::read_sweep(env, sweep_with_axis("tp", {tp})); },
                                     "'tp' must be in 1..4096"));
  }
}

TEST(InputLimits, TokensTenToTheFifteenth) {
  const cli::Env env = fixtures_env();
  const int64_t tokens = 1'000'000'000'000'000;
  EXPECT_TRUE(rejects<ConfigError>([&] { cli::choose_sublayer(env, "t-nlg", 8, "fc2", tokens); },
                                   "is outside"));
  EXPECT_TRUE(
      rejects<ConfigError>([&] { studies::read_sweep(env, sweep_with_axis("tokens", {tokens})); },
                           "'tokens' must be in"));
  json sweep = sweep_with_axis("tp", {8}).root;
  sweep["base"]["tokens"] = tokens;
  EXPECT_TRUE(
      rejects<ConfigError>([&] { studies::read_sweep(env, doc_of(sweep)); }, "out of range"));
}

TEST(InputLimits, ZeroBandwidthLinkAndHbm) {
  const ConfigDoc link =
      doc_of({{"extends", "presets/links/t3-ring-link.json"}, {"bandwidth", "0 GB/s"}});
  EXPECT_TRUE(rejects<ConfigError>([&] { bind(fabric::link_params(), ConfigNode::root(link)); },
                                   "'bandwidth' is out of range"));
  const ConfigDoc hbm = doc_of({{"extends", "presets/hbm/t3-hbm2.json"}, {"bandwidth", "0 B/s"}});
  EXPECT_TRUE(rejects<ConfigError>([&] { hbm::HbmConfig::from(ConfigNode::root(hbm)); },
                                   "'bandwidth' is out of range"));
  // Non-zero in total but zero per channel once divided: still an error, not a divide by zero.
  const ConfigDoc thin = doc_of({{"extends", "presets/hbm/t3-hbm2.json"}, {"bandwidth", "1 B/s"}});
  EXPECT_TRUE(rejects<ConfigError>([&] { hbm::HbmConfig::from(ConfigNode::root(thin)); },
                                   "rounds to 0 B/s per channel"));
  EXPECT_TRUE(rejects<ConfigError>(
      [&] {
        studies::read_sweep(fixtures_env(), sweep_with_axis("fabric.link.bandwidth", {"0 B/s"}));
      },
      "value rejected"));
}

TEST(InputLimits, TrackerCapacityZero) {
  const ConfigDoc t3 = doc_of({{"tracker_entries", 0}});
  EXPECT_TRUE(rejects<ConfigError>([&] { bind(tracker::tracker_params(), ConfigNode::root(t3)); },
                                   "out of range"));
  // A run of the fused mode binds the tracker before any simulated time passes.
  const ConfigDoc sys = cli::load_system(fixtures_env(), "t3-ring-8", {"t3.tracker_entries=0"});
  const system::SublayerSpec spec{{1024, 1024, 1024}, 2, 16, 4, 1};
  EXPECT_TRUE(rejects<ConfigError>([&] { system::run_sublayer(sys, spec, system::Mode::kT3); },
                                   "tracker_entries"));
  // "Every path and value is checked before anything runs" (sweep_spec.h).
  EXPECT_TRUE(rejects<ConfigError>(
      [&] { studies::read_sweep(fixtures_env(), sweep_with_axis("t3.tracker_entries", {0})); },
      "tracker_entries"));
}

TEST(InputLimits, HugeUnitValues) {
  EXPECT_TRUE(rejects<UnitError>([] { parse_bandwidth("1e30 GB/s"); }, "unknown unit"));
  EXPECT_TRUE(rejects<UnitError>([] { parse_bandwidth("1000000000000 TB/s"); }, "overflows"));
  EXPECT_TRUE(rejects<UnitError>([] { parse_bytes("1234567890123456789012345678901234567890 B"); },
                                 "too many digits"));
  EXPECT_TRUE(rejects<UnitError>([] { parse_duration("0.0000000000000000000000001 s"); },
                                 "too many digits"));
  EXPECT_TRUE(rejects<UnitError>([] { parse_bytes("18446744073709551616 B"); }, "overflows"));
  EXPECT_EQ(parse_bytes("18446744073709551615 B").count(), std::numeric_limits<uint64_t>::max());
  for (const char* text : {"1e30 GB/s", "1000000000000 TB/s", "99999999999999999999999 GB/s"}) {
    const ConfigDoc link =
        doc_of({{"extends", "presets/links/t3-ring-link.json"}, {"bandwidth", text}});
    EXPECT_TRUE(rejects<ConfigError>([&] { bind(fabric::link_params(), ConfigNode::root(link)); },
                                     "/bandwidth"))
        << text;
  }
  // A 40-digit JSON number is a double: not an integer, so not a TP degree or a bank count.
  const ConfigDoc hbm =
      doc_of({{"extends", "presets/hbm/t3-hbm2.json"},
              {"banks", json::parse("1234567890123456789012345678901234567890")}});
  EXPECT_TRUE(rejects<ConfigError>([&] { hbm::HbmConfig::from(ConfigNode::root(hbm)); },
                                   "must be a integer"));
}

// An integer parameter must fit the field it configures: 2^32 credits are not "0 = unlimited",
// 2^32 + 8 GPUs are not 8, and 2^64 - 1 switch ports are not -1.
TEST(InputLimits, IntegersThatDoNotFitTheirField) {
  const json ring = {{"topology", "ring"},
                     {"gpus", 8},
                     {"bidirectional", true},
                     {"link", {{"extends", "presets/links/t3-ring-link.json"}}}};
  json credits = ring;
  credits["link"]["credits"] = uint64_t{1} << 32;
  EXPECT_TRUE(rejects<ConfigError>(
      [&] { fabric::parse_fabric_config(ConfigNode::root(doc_of(credits))); }, "credits"));
  json gpus = ring;
  gpus["gpus"] = (uint64_t{1} << 32) + 8;
  EXPECT_TRUE(rejects<ConfigError>(
      [&] { fabric::parse_fabric_config(ConfigNode::root(doc_of(gpus))); }, "gpus"));
  const ConfigDoc sw = doc_of({{"latency", "100 ns"},
                               {"port_bandwidth", "450 GB/s"},
                               {"ports", std::numeric_limits<uint64_t>::max()}});
  EXPECT_TRUE(
      rejects<ConfigError>([&] { bind(fabric::switch_params(), ConfigNode::root(sw)); }, "ports"));
}

// The property behind the test above: every integer parameter of the public parameter sets declares
// a maximum, so no configured integer can overflow the field (int, uint32_t) it is cast to.
TEST(InputLimits, EveryIntegerParameterHasAMaximum) {
  const std::vector<std::pair<std::string, Params>> sets = {
      {"system", system::system_params()},
      {"gpu", gpu::gpu_params()},
      {"dma", gpu::dma_params()},
      {"hbm", hbm::hbm_params()},
      {"fabric", fabric::fabric_params()},
      {"link", fabric::link_params()},
      {"switch", fabric::switch_params()},
      {"nic", fabric::nic_params()},
      {"ib_switch", fabric::ib_switch_params()},
      {"collectives", collectives::library_params()},
      {"tracker", tracker::tracker_params()}};
  for (const auto& [set, params] : sets) {
    for (const ParamSpec& s : params.specs()) {
      if (s.kind != ParamKind::kInt) continue;
      EXPECT_TRUE(s.max && *s.max <= std::numeric_limits<int32_t>::max())
          << set << "." << s.name << " has no maximum (add .range(lo, hi))";
    }
  }
}

}  // namespace
}  // namespace t3sim::reliability
