// Fuzz target: import -> write -> check -> replay -> timeline -> check, the path a profile takes
// through `t3sim trace import-kineto|import-chakra`, `t3sim replay --trace-out` and `t3sim check`.
// Input: a Kineto profile (JSON: the first byte is '{') or, where protobuf is present, one Chakra
// ET rank file (any other first byte). Properties:
//  - the importers let only ConfigError, UsageError and UnitError escape;
//  - an imported trace, written as `trace import-*` writes it (write_trace), passes `t3sim check`
//    (cli::check_file, the command's own code), streams back (read_trace) equal to the document
//    read whole (parse_trace) and survives another write and read unchanged;
//  - a trace small enough to simulate quickly (kMaxOps ops, small GEMMs and transfers, as
//    fuzz_simulate) replays on the frozen t3-ring-8 (tests/fixtures) at its TP, 2..8 GPUs, where
//    only input errors may escape (a ModelError is a finding), with finite times; the replay's
//    timeline (record_replay, as `replay --trace-out` writes it) and its JSON result pass
//    `t3sim check` and the whole-document timeline check (sim/timeline_check.h).
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>

#include "cli/validators.h"
#include "models/system/replay.h"
#include "models/system/replay_timeline.h"
#include "models/system/system.h"
#include "models/workload/chakra_import.h"
#include "models/workload/kineto_import.h"
#include "models/workload/trace.h"
#include "sim/timeline.h"
#include "sim/timeline_check.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/fuzz/fuzz_replay.h"

namespace t3sim::fuzz {
namespace {

namespace fs = std::filesystem;

// Files of one fuzzing process, rewritten for every input, removed when the process exits.
struct Scratch {
  fs::path dir;
  Scratch()
      : dir(fs::temp_directory_path() / ("t3sim_fuzz_roundtrip_" + std::to_string(::getpid()))) {
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

const Scratch& scratch() {
  static const Scratch s;
  return s;
}

// `t3sim check FILE`, in process: anything it throws about a file t3sim wrote is a finding.
void expect_check_passes(const fs::path& file, const char* what) {
  const cli::Env env{{fixtures_dir(), source_dir()}, false};
  try {
    cli::check_file(env, file);
  } catch (const std::exception& e) {
    fuzz_fail(std::string("t3sim check refuses the ") + what + " t3sim wrote: " + e.what());
  }
}

std::optional<workload::Trace> import(const uint8_t* data, size_t size) {
  std::optional<workload::Trace> trace;
  if (size > 0 && data[0] == '{') {
    const auto json = parse_json(as_text(data, size));
    if (!json) return std::nullopt;
    expect_input_errors_only("import_kineto", [&] {
      trace = workload::import_kineto(*json, "fuzz.json", {.infer_cross_stream_deps = true});
    });
    return trace;
  }
  if (!workload::chakra_import_available()) return std::nullopt;
  const fs::path et = scratch().dir / "fuzz.0.et";
  {
    std::ofstream out(et, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  workload::ChakraImportOptions options;
  options.group = 2;  // the file stands for a group of 2 (its own collectives say more or less)
  expect_input_errors_only("import_chakra",
                           [&] { trace = workload::import_chakra({et}, options).trace; });
  return trace;
}

// Returns the trace as `t3sim replay FILE` reads it.
workload::Trace check_written_trace(const workload::Trace& trace) {
  const fs::path file = scratch().dir / "imported.json";
  expect_input_errors_only("write_trace", [&] { workload::write_trace(trace, file); });
  expect_check_passes(file, "imported trace");
  try {
    // The reader fills in what the writer leaves out (an op's tp_group from the metadata's tp),
    // so the file read as `t3sim check` streams it must equal the document read whole, and
    // writing what was read and reading it again must give it back unchanged.
    const workload::Trace whole = workload::parse_trace(workload::to_json(trace), "imported.json");
    const workload::Trace back = workload::read_trace(file);
    if (!(back == whole)) fuzz_fail("the written trace streamed back differs from it read whole");
    const fs::path again = scratch().dir / "again.json";
    workload::write_trace(back, again);
    if (!(workload::read_trace(again) == back)) {
      fuzz_fail("a trace read back does not survive another write and read");
    }
    return back;
  } catch (const std::exception& e) {
    fuzz_fail(std::string("reading back the trace t3sim wrote threw: ") + e.what());
  }
}

void check_replay(const workload::Trace& trace, const system::ReplayResult& r) {
  if (!std::isfinite(r.total_us) || r.total_us < 0 || r.total_us > kYearUs) {
    fuzz_fail("replay total_us out of range: " + std::to_string(r.total_us));
  }
  if (r.ops.size() != trace.ops.size()) fuzz_fail("replay lost ops");
  Timeline tl;
  system::record_replay(tl, r);
  const std::string text = tl.json();
  const auto doc = parse_json(text);
  if (!doc) fuzz_fail("the replay's timeline is not JSON within the limits");
  const auto problems = check_timeline(*doc, 1);
  if (!problems.empty()) fuzz_fail("the replay's timeline: " + problems.front());
  const fs::path file = scratch().dir / "timeline.json";
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
  }
  expect_check_passes(file, "replay timeline");
  if (!parse_json(system::to_json(r).dump())) fuzz_fail("the replay's result is not JSON");
}

}  // namespace
}  // namespace t3sim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace t3sim;
  using namespace t3sim::fuzz;
  const std::optional<workload::Trace> imported = import(data, size);
  if (!imported) return 0;
  const std::optional<workload::Trace> trace = check_written_trace(*imported);
  if (!tiny(*trace)) return 0;
  // The group of the trace: its metadata's TP, else its first collective's group, else 2.
  std::optional<int> group = trace->metadata.tp;
  for (const auto& op : trace->ops) {
    if (!group && op.tp_group) group = op.tp_group;
  }
  const int gpus = group.value_or(2);
  if (gpus < 2 || gpus > 8) return 0;
  expect_input_errors_only("replay", [&] {
    const ConfigDoc doc =
        system::load_system_config("t3-ring-8", fixtures_dir(), {"gpus=" + std::to_string(gpus)});
    check_replay(*trace, system::replay_trace(doc, *trace, "imported.json", {}));
  });
  return 0;
}
