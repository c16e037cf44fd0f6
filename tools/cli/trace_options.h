// The timeline options every simulating command shares: --trace-out FILE and the size bounds
// (--trace-gpus, --trace-bin, --trace-max-events) of sim/timeline.h. Contract: resolve() checks the
// output target before any work (a FIFO or folder is refused) and returns "" when tracing is off.
#pragma once

#include <cstdint>
#include <string>

#include "cli/common.h"
#include "models/system/mode.h"
#include "sim/timeline.h"

namespace t3sim::cli {

struct TraceCli {
  std::string out;
  std::string legacy;  // sublayer's old --trace (deprecated alias of --trace-out)
  int gpus = 8;
  std::string bin = "1 us";
  uint64_t max_events = 500'000;

  // Adds the options to `desc`; `legacy_alias` also adds --trace as a deprecated --trace-out.
  void add(po::options_description& desc, bool legacy_alias = false);
  // The output path ("" = off) and fills `opt` from the flags.
  std::string resolve(TimelineOptions& opt) const;
  // The flag the output was given with: "--trace-out", or sublayer's old "--trace".
  std::string flag() const { return out.empty() && !legacy.empty() ? "--trace" : "--trace-out"; }
  // After a successful run (so that an error stays one line): the note that --trace is deprecated.
  void note_deprecated() const;
};

// A composed mode (ideal, ideal-nmc) has no single run to record: UsageError when `path` is set.
void check_traceable(const std::string& path, system::Mode mode);

}  // namespace t3sim::cli
