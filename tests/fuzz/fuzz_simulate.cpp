// Fuzz target: whole simulations. Input: a trace document (traces/README.md), optionally followed
// by lines "--mode NAME" (an execution mode, default sequential) and "--set PATH=VALUE" (overrides
// of a small machine: the frozen tests/fixtures/systems/t3-ring-8.json at 2 GPUs unless "--set
// gpus=N" says otherwise, N <= 8). The trace is replayed on that machine (models/system/replay.h):
// every GEMM, collective and memory op is simulated. Work is kept tiny so each input runs in well
// under a second: traces over kMaxOps ops, GEMMs over kMaxFlops, transfers over kMaxBytes, and
// overrides outside kSettable are skipped (not findings). Properties: only
// ConfigError/UsageError/UnitError escape (a ModelError, i.e. a broken invariant, is a finding); an
// accepted replay reports finite, non-negative times below a year (no never-finished sentinel) that
// respect each op's deps.
#include <cmath>
#include <string>
#include <vector>

#include "models/system/replay.h"
#include "models/system/system.h"
#include "models/workload/trace.h"
#include "sim/config.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/fuzz/fuzz_replay.h"

namespace t3sim::fuzz {
namespace {

// Keys an input may override: values of any kind reach binding, but only keys whose every
// accepted value keeps the event count of a tiny run small (no packet or transaction sizes).
const char* const kSettable[] = {"gpus",
                                 "nmc",
                                 "gpu.cus",
                                 "gpu.clock",
                                 "gpu.efficiency",
                                 "gpu.wgs_per_cu",
                                 "gpu.launch_overhead",
                                 "hbm.bandwidth",
                                 "hbm.latency",
                                 "hbm.policy",
                                 "hbm.efficiency",
                                 "fabric.bidirectional",
                                 "fabric.link.bandwidth",
                                 "fabric.link.latency",
                                 "collectives.channels",
                                 "t3.tracker_entries",
                                 "t3.rs_direction"};

bool settable(const std::string& set) {
  const std::string key = set.substr(0, set.find('='));
  for (const char* k : kSettable) {
    if (key == k) return true;
  }
  return false;
}

struct Input {
  std::string trace;
  std::string mode = "sequential";
  std::vector<std::string> sets;
};

Input split(std::string_view text) {
  Input in;
  size_t at = text.find("\n--");
  in.trace = std::string(text.substr(0, at));
  while (at != std::string_view::npos) {
    const size_t begin = at + 1;
    at = text.find("\n--", begin);
    const std::string line(text.substr(begin, at == std::string_view::npos ? at : at - begin));
    if (line.rfind("--mode ", 0) == 0) in.mode = line.substr(7);
    if (line.rfind("--set ", 0) == 0) in.sets.push_back(line.substr(6));
  }
  return in;
}

void check_result(const workload::Trace& trace, const system::ReplayResult& r) {
  if (!std::isfinite(r.total_us) || r.total_us < 0 || r.total_us > kYearUs) {
    fuzz_fail("replay total_us out of range: " + std::to_string(r.total_us));
  }
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const auto& op = r.ops[i];
    if (!std::isfinite(op.duration_us) || op.duration_us < 0 || op.end_us() > kYearUs) {
      fuzz_fail("op '" + op.id + "' has duration " + std::to_string(op.duration_us));
    }
    for (const auto& dep : trace.ops[i].deps) {
      for (const auto& d : r.ops) {
        // A fused pair reports its all-reduce from the GEMM's end: a dep is met by then.
        if (d.id == dep && op.start_us + 1e-6 < d.end_us() && op.fused_with.empty()) {
          fuzz_fail("op '" + op.id + "' starts before its dep '" + dep + "' ends");
        }
      }
    }
  }
}

}  // namespace
}  // namespace t3sim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace t3sim;
  using namespace t3sim::fuzz;
  const Input in = split(as_text(data, size));
  for (const auto& s : in.sets) {
    if (!settable(s)) return 0;
  }
  const auto json = parse_json(in.trace);
  if (!json) return 0;
  std::optional<workload::Trace> trace;
  expect_input_errors_only("parse_trace", [&] { trace = workload::parse_trace(*json, "fuzz"); });
  if (!trace || !tiny(*trace)) return 0;
  const auto mode = system::parse_mode(in.mode);
  if (!mode) return 0;
  expect_input_errors_only("replay", [&] {
    std::vector<std::string> sets{"gpus=2"};
    sets.insert(sets.end(), in.sets.begin(), in.sets.end());
    const ConfigDoc doc = system::load_system_config("t3-ring-8", fixtures_dir(), sets);
    if (system::system_gpus(doc) > 8) return;
    system::ReplayOptions opts;
    opts.mode = *mode;
    check_result(*trace, system::replay_trace(doc, *trace, "fuzz", opts));
  });
  return 0;
}
