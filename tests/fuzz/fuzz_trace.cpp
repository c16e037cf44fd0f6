// Fuzz target: the workload trace parser (models/workload/trace.h). Properties: only ConfigError
// escapes parse_trace; every accepted trace round-trips, parse_trace(to_json(t)) == t and through
// format_trace's text (the header's contract).
#include "models/workload/trace.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace t3sim;
  using namespace t3sim::fuzz;
  const auto json = parse_json(as_text(data, size));
  if (!json) return 0;
  std::optional<workload::Trace> trace;
  expect_input_errors_only("parse_trace",
                           [&] { trace = workload::parse_trace(*json, "fuzz.json"); });
  if (!trace) return 0;
  try {
    if (workload::parse_trace(workload::to_json(*trace), "round-trip.json") != *trace) {
      fuzz_fail("parse_trace(to_json(t)) != t for " + workload::to_json(*trace).dump());
    }
    const auto text = nlohmann::json::parse(workload::format_trace(*trace));
    if (workload::parse_trace(text, "format_trace.json") != *trace) {
      fuzz_fail("format_trace text does not parse back to the trace: " + text.dump());
    }
  } catch (const std::exception& e) {
    fuzz_fail(std::string("an accepted trace does not round-trip: ") + e.what());
  }
  return 0;
}
