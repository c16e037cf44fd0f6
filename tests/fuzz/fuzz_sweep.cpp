// Fuzz target: sweep specs (studies/sweep_spec.h). The document is resolved like a file under
// configs/sweeps/ ("extends" against the repository's configs/) and read by read_sweep with an Env
// on the source tree, so every axis value is checked against the real systems and models (each
// config-path value builds a System). Properties: only ConfigError/UsageError/UnitError escape;
// every point of an accepted sweep can be expanded (sweep_point) without an exception.
#include "studies/sweep_spec.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace t3sim;
  using namespace t3sim::fuzz;
  const auto json = parse_json(as_text(data, size));
  if (!json) return 0;
  const studies::Env env{source_dir() + "/configs", source_dir()};
  std::optional<studies::SweepSpec> spec;
  expect_input_errors_only("read_sweep", [&] {
    const ConfigDoc doc = config_from_json(*json, "fuzz-sweep.json", {env.configs_dir});
    spec = studies::read_sweep(env, doc);
  });
  if (!spec) return 0;
  const size_t points = spec->points();
  for (size_t i = 0; i < points && i < 64; ++i) {
    try {
      studies::sweep_point(*spec, i);
    } catch (const std::exception& e) {
      fuzz_fail("sweep_point " + std::to_string(i) + " of an accepted sweep threw: " + e.what());
    }
  }
  return 0;
}
