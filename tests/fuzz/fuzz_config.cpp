// Fuzz target: strict config handling (sim/config.h, sim/params.h) and its real consumers.
// Input: a JSON document, optionally followed by lines "--set PATH=VALUE" (each line after the
// document that starts with "--set "). The document goes through config_from_json ("extends"
// resolved against the repository's configs/), the overrides through apply_override, and the
// result is bound against the real parameter sets the way `t3sim check` does: a "kind": "system"
// document builds a whole System (up to kMaxBuiltGpus GPUs; larger ones are only bound); anything
// else is bound as a GPU, HBM and link/switch/NIC preset and its "hbm", "gpu", "fabric" and "t3"
// members against theirs.
#include <vector>

#include "models/collectives/library.h"
#include "models/fabric/specs.h"
#include "models/gpu/gpu_spec.h"
#include "models/hbm/hbm_config.h"
#include "models/system/system.h"
#include "models/tracker/tracker.h"
#include "sim/config.h"
#include "sim/params.h"
#include "sim/simulator.h"
#include "tests/fuzz/fuzz_common.h"

namespace t3sim::fuzz {
namespace {

constexpr std::string_view kSet = "\n--set ";
// Machines above this many GPUs are bound but not built: under ASan a 64-GPU System takes ~0.5 s
// to build, which would spend the run on a few inputs without new coverage (binding alone checks
// every size limit).
constexpr int kMaxBuiltGpus = 16;

bool small_machine(const nlohmann::json& root) {
  const auto gpus = root.find("gpus");
  return gpus != root.end() && gpus->is_number_integer() && gpus->get<int64_t>() <= kMaxBuiltGpus;
}

void bind_all(const ConfigNode& node) {
  expect_input_errors_only("bind gpu", [&] { gpu::bind_gpu(node); });
  expect_input_errors_only("bind hbm", [&] { hbm::HbmConfig::from(node); });
  expect_input_errors_only("bind link", [&] { bind(fabric::link_params(), node); });
  expect_input_errors_only("bind switch", [&] { bind(fabric::switch_params(), node); });
  expect_input_errors_only("bind nic", [&] { bind(fabric::nic_params(), node); });
  expect_input_errors_only("bind ib switch", [&] { bind(fabric::ib_switch_params(), node); });
  expect_input_errors_only("bind fabric", [&] { fabric::parse_fabric_config(node); });
  expect_input_errors_only("bind tracker", [&] { bind(tracker::tracker_params(), node); });
}

void check_document(const ConfigDoc& doc) {
  const ConfigNode root = ConfigNode::root(doc);
  if (doc.root.is_object() && doc.root.value("kind", nlohmann::json()) == "system") {
    if (!small_machine(doc.root)) {
      expect_input_errors_only("bind system", [&] { bind(system::system_params(), root); });
      return;
    }
    expect_input_errors_only("System", [&] {
      Simulator sim;
      system::System sys(sim, root);  // binds the collectives and t3 settings too
    });
    return;
  }
  bind_all(root);
  for (const char* key : {"gpu", "hbm", "fabric", "t3"}) {
    if (root.has(key)) bind_all(root.child(key));
  }
}

}  // namespace
}  // namespace t3sim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace t3sim;
  using namespace t3sim::fuzz;
  const std::string_view text = as_text(data, size);
  const size_t first_set = text.find(kSet);
  const auto json = parse_json(text.substr(0, first_set));
  if (!json) return 0;
  std::vector<std::string> sets;
  for (size_t at = first_set; at != std::string_view::npos;) {
    const size_t begin = at + kSet.size();
    at = text.find(kSet, begin);
    sets.emplace_back(text.substr(begin, at == std::string_view::npos ? at : at - begin));
  }
  const std::vector<std::filesystem::path> dirs{source_dir() + "/configs"};
  expect_input_errors_only("config", [&] {
    ConfigDoc doc = config_from_json(*json, "fuzz.json", dirs);
    for (const auto& s : sets) {
      expect_input_errors_only("apply_override", [&] { apply_override(doc, s); });
    }
    check_document(doc);
  });
  return 0;
}
