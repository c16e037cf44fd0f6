#include "cli/trace_options.h"

#include <cstdio>

#include "sim/atomic_file.h"
#include "sim/errors.h"
#include "sim/units_parse.h"

namespace t3sim::cli {

void TraceCli::add(po::options_description& desc, bool legacy_alias) {
  desc.add_options()("trace-out", po::value(&out),
                     "write a Perfetto timeline (Chrome JSON) of the run to this file")(
      "trace-gpus", integer(&gpus, 0, 4096)->default_value(8),
      "timeline: GPUs 0..N-1 get slices and flow arrows, 0..4096 (counters: every GPU)")(
      "trace-bin", po::value(&bin)->default_value("1 us"),
      "timeline: bandwidth counters sum bytes over bins this long, at least 100 ns (bins merge "
      "to stay small)")(
      "trace-max-events",
      integer(&max_events, uint64_t{1000}, uint64_t{50'000'000})->default_value(500'000),
      "timeline: slices, flows and levels kept, 1000..50000000 (about 100 bytes each)");
  if (legacy_alias) {
    desc.add_options()("trace", po::value(&legacy), "deprecated: same as --trace-out");
  }
}

std::string TraceCli::resolve(TimelineOptions& opt) const {
  if (!legacy.empty() && !out.empty()) {
    throw UsageError("--trace is the old name of --trace-out: give only --trace-out");
  }
  const std::string path = out.empty() ? legacy : out;
  opt.detail_gpus = gpus;
  opt.max_events = max_events;
  try {
    opt.bin = parse_duration(bin);
  } catch (const UnitError& e) {
    throw UsageError(std::string("--trace-bin: ") + e.what());
  }
  if (opt.bin < Duration::ns(100)) throw UsageError("--trace-bin must be at least 100 ns");
  if (!path.empty()) output_target(path);  // a FIFO or folder is refused before the run
  return path;
}

void TraceCli::note_deprecated() const {
  if (!legacy.empty())
    std::fprintf(stderr, "t3sim: note: --trace is deprecated, use --trace-out\n");
}

void check_traceable(const std::string& path, system::Mode mode) {
  if (path.empty() || system::mode_spec(mode).simulated) return;
  throw UsageError("--trace-out: mode '" + std::string(system::to_string(mode)) +
                   "' is composed from separate runs and has no single timeline; trace a "
                   "simulated mode (t3sim modes)");
}

}  // namespace t3sim::cli
