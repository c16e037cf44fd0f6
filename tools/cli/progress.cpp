#include "cli/progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace t3sim::cli {

bool progress_shown(bool stderr_is_tty, bool quiet) { return stderr_is_tty && !quiet; }

namespace {

std::string seconds(double s) {
  char buf[32];
  if (s < 100) {
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  } else if (s < 6000) {
    std::snprintf(buf, sizeof buf, "%.0f min %02.0f s", std::floor(s / 60),
                  s - 60 * std::floor(s / 60));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  }
  return buf;
}

}  // namespace

std::string format_progress(std::string_view what, std::string_view unit, size_t done, size_t total,
                            size_t ran, double elapsed_s) {
  char buf[160];
  const size_t pct = total == 0 ? 100 : std::min<size_t>(100, done * 100 / total);
  std::snprintf(buf, sizeof buf, "[%.*s] %zu/%zu %.*s (%zu%%)", static_cast<int>(what.size()),
                what.data(), done, total, static_cast<int>(unit.size()), unit.data(), pct);
  std::string out = buf;
  if (ran == 0 || elapsed_s <= 0) return out;
  const double rate = static_cast<double>(ran) / elapsed_s;
  std::snprintf(buf, sizeof buf, " %.1f %.*s/s", rate, static_cast<int>(unit.size()), unit.data());
  out += buf;
  if (done >= total) return out + " done in " + seconds(elapsed_s);
  return out + " ETA " + seconds(static_cast<double>(total - done) / rate);
}

ProgressLine::ProgressLine(std::string what, std::string unit, bool shown, size_t already)
    : what_(std::move(what)),
      unit_(std::move(unit)),
      shown_(shown),
      already_(already),
      t0_(std::chrono::steady_clock::now()),
      last_(t0_) {}

void ProgressLine::update(size_t done, size_t total) {
  if (!shown_) return;
  const auto now = std::chrono::steady_clock::now();
  const bool last = done >= total;
  if (!last && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double el = std::chrono::duration<double>(now - t0_).count();
  const std::string line =
      format_progress(what_, unit_, done, total, done - std::min(done, already_), el);
  std::fprintf(stderr, "\r%s\033[K%s", line.c_str(), last ? "\n" : "");
}

}  // namespace t3sim::cli
