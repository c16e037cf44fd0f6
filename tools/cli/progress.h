// The progress line of long commands (reproduce, validate, sweep, replay): points done, rate and
// ETA, redrawn in place on stderr. Shown only when stderr is a terminal and --quiet is not given;
// a redirected stderr gets nothing, so logs and pipes stay clean. Contract: format_progress() and
// progress_shown() are pure (tested without a terminal); the line is redrawn at most every
// 100 ms and ends with a newline when the last point is done.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace t3sim::cli {

bool progress_shown(bool stderr_is_tty, bool quiet);

// "[sweep] 12/40 points (30%) 5.2 points/s ETA 5 s": `ran` of the `done` points ran in
// `elapsed_s` (the rest were done before, e.g. a resumed sweep); rate and ETA are left out until
// one has run, and "ETA" becomes "done in T" at the end.
std::string format_progress(std::string_view what, std::string_view unit, size_t done, size_t total,
                            size_t ran, double elapsed_s);

class ProgressLine {
 public:
  ProgressLine(std::string what, std::string unit, bool shown, size_t already = 0);
  void update(size_t done, size_t total);

 private:
  std::string what_, unit_;
  bool shown_;
  size_t already_;  // points done before this run (a resumed sweep): not in the rate
  std::chrono::steady_clock::time_point t0_, last_;
};

}  // namespace t3sim::cli
