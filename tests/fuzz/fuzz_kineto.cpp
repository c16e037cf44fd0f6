// Fuzz target: the Kineto (PyTorch profiler) importer (models/workload/kineto_import.h), with and
// without inferred cross-stream dependencies. Properties: only ConfigError escapes; an imported
// trace is a valid t3sim trace, i.e. it passes the strict trace parser after to_json (the importer
// must not produce what parse_trace would reject: oversized ops, out-of-range times, ...).
#include "models/workload/kineto_import.h"
#include "models/workload/trace.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace t3sim;
  using namespace t3sim::fuzz;
  const auto json = parse_json(as_text(data, size));
  if (!json) return 0;
  for (const bool infer : {true, false}) {
    std::optional<workload::Trace> trace;
    expect_input_errors_only("import_kineto", [&] {
      trace = workload::import_kineto(*json, "fuzz.json", {.infer_cross_stream_deps = infer});
    });
    if (!trace) continue;
    try {
      workload::parse_trace(workload::to_json(*trace), "imported.json");
    } catch (const std::exception& e) {
      fuzz_fail(std::string("import_kineto produced a trace parse_trace rejects: ") + e.what());
    }
  }
  return 0;
}
