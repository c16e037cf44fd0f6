#include "models/workload/kineto_summary.h"

#include <algorithm>
#include "models/workload/kineto_fixed.h"

#include <fmt/format.h>

namespace t3sim::workload {
namespace {

struct KinetoCategoryInfo {
  std::string_view name;
  bool simulated;
};

constexpr std::array<KinetoCategoryInfo, kKernelCategories> kKinetoCategories = {{
    {"gemm", true},
    {"collective", true},
    {"memory", true},
    {"gemm (not modelled)", false},
    {"collective (not modelled)", false},
    {"convolution", false},
    {"cuda graph", false},
    {"memcpy", false},
    {"memset", false},
    {"host copy", false},
    {"memory (not modelled)", false},
    {"other kernels", false},
}};

const KinetoCategoryInfo& info(KernelCategory c) {
  return kKinetoCategories.at(static_cast<std::size_t>(c));
}

double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

}  // namespace

std::string_view to_string(KernelCategory c) { return info(c).name; }
bool is_simulated(KernelCategory c) { return info(c).simulated; }

void ImportSummary::add(KernelCategory c, double dur_us) {
  Category& cat = categories.at(static_cast<std::size_t>(c));
  ++cat.ops;
  cat.gpu_us += dur_us;
}

void ImportSummary::add_fixed(FixedReason r, double dur_us) {
  Category& c = fixed_reasons.at(static_cast<std::size_t>(r));
  ++c.ops;
  c.gpu_us += dur_us;
}

void add_warning(std::vector<ImportWarning>& warnings, const std::string& reason,
                 const std::string& detail, const std::string& pointer, double dur_us) {
  auto it = std::find_if(warnings.begin(), warnings.end(),
                         [&](const ImportWarning& w) { return w.reason == reason; });
  if (it == warnings.end()) it = warnings.insert(warnings.end(), {reason, detail, pointer, 0, 0});
  ++it->count;
  it->gpu_us += dur_us;
}

std::vector<std::string> format_warning_lines(const std::vector<ImportWarning>& warnings,
                                              const std::string& file, std::string_view noun,
                                              std::string_view of, std::string_view kept_as) {
  std::vector<std::string> lines;
  for (const ImportWarning& w : warnings) {
    lines.push_back(fmt::format(
        "warning: {}: {} {}{} ({:.1f} us{}): {}; kept as {} (first: {} at {}; --strict fails "
        "instead)",
        file, w.count, noun, w.count == 1 ? "" : "s", w.gpu_us, of, w.reason, kept_as, w.detail,
        w.pointer));
  }
  return lines;
}

nlohmann::ordered_json warnings_json(const std::vector<ImportWarning>& warnings,
                                     std::string_view time_key) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const ImportWarning& w : warnings) {
    out.push_back({{"reason", w.reason},
                   {"first", w.detail},
                   {"at", w.pointer},
                   {"count", w.count},
                   {std::string(time_key), w.gpu_us}});
  }
  return out;
}

void ImportSummary::warn(const std::string& reason, const std::string& detail,
                         const std::string& pointer, double dur_us) {
  add_warning(warnings, reason, detail, pointer, dur_us);
}

double ImportSummary::simulated_share() const {
  double simulated = 0;
  for (std::size_t i = 0; i < kKernelCategories; ++i) {
    if (kKinetoCategories[i].simulated) simulated += categories[i].gpu_us;
  }
  return pct(simulated, gpu_us);
}

std::string format_summary(const ImportSummary& s) {
  std::string out = fmt::format(
      "GPU time {:.1f} us in {} events on {} streams (span {:.1f} us); simulated {:.1f} %, kept "
      "fixed {:.1f} %",
      s.gpu_us, s.gpu_events, s.streams, s.span_us, s.simulated_share(),
      s.gpu_events > 0 ? 100.0 - s.simulated_share() : 0.0);
  out += fmt::format("\n  {:<26} {:>8} {:>14} {:>8}  {}", "category", "ops", "GPU us", "share",
                     "replayed as");
  for (std::size_t i = 0; i < kKernelCategories; ++i) {
    const ImportSummary::Category& c = s.categories[i];
    if (c.ops == 0) continue;
    out += fmt::format("\n  {:<26} {:>8} {:>14.1f} {:>7.1f}%  {}", kKinetoCategories[i].name, c.ops,
                       c.gpu_us, pct(c.gpu_us, s.gpu_us),
                       kKinetoCategories[i].simulated ? "simulated" : "fixed (measured)");
  }
  bool header = false;
  for (std::size_t i = 0; i < kFixedReasons; ++i) {
    const ImportSummary::Category& c = s.fixed_reasons[i];
    if (c.ops == 0) continue;
    if (!header) {
      out += fmt::format("\n  {:<46} {:>8} {:>14} {:>8}  {}", "why not simulated", "ops", "GPU us",
                         "share", "in the profiler");
      header = true;
    }
    const auto r = static_cast<FixedReason>(i);
    out += fmt::format("\n  {:<46} {:>8} {:>14.1f} {:>7.1f}%  {}", describe(r), c.ops, c.gpu_us,
                       pct(c.gpu_us, s.gpu_us), fix_hint(r).empty() ? "-" : fix_hint(r));
  }
  out += fmt::format("\n  idle between kernels: {:.1f} us, {}", s.idle_us,
                     s.idle_kept ? "kept (each op's idle_us; replay waits it out)"
                                 : "DROPPED (--drop-idle): replay packs the kernels");
  out += fmt::format(
      "\n  kernels linked to their op: {} through the runtime launch, {} through "
      "External id",
      s.linked_by_launch, s.linked_by_external);
  const auto& comm = s.categories[static_cast<std::size_t>(KernelCategory::kCollectiveUnmodelled)];
  if (comm.ops > 0) {
    out += fmt::format("\ncommunication not simulated: {} ops, {:.1f} us", comm.ops, comm.gpu_us);
  }
  return out;
}

std::vector<std::string> format_warnings(const ImportSummary& s, const std::string& file) {
  std::vector<std::string> lines = format_warning_lines(s.warnings, file, "kernel", " of GPU time",
                                                        "fixed ops of their measured time");
  if (s.without_ph > 0) {
    lines.push_back(
        fmt::format("warning: {}: {} GPU events without \"ph\" ({:.1f} us of \"dur\"): "
                    "not complete events, so not in the trace (first at {}; add "
                    "\"ph\": \"X\" to them, or --strict fails)",
                    file, s.without_ph, s.without_ph_us, s.first_without_ph));
  }
  return lines;
}

nlohmann::ordered_json to_json(const ImportSummary& s) {
  nlohmann::ordered_json cats = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < kKernelCategories; ++i) {
    const ImportSummary::Category& c = s.categories[i];
    if (c.ops == 0) continue;
    cats.push_back({{"category", kKinetoCategories[i].name},
                    {"simulated", kKinetoCategories[i].simulated},
                    {"ops", c.ops},
                    {"gpu_us", c.gpu_us},
                    {"share_pct", pct(c.gpu_us, s.gpu_us)}});
  }
  nlohmann::ordered_json j;
  j["gpu_events"] = s.gpu_events;
  j["gpu_events_without_ph"] = s.without_ph;
  j["streams"] = s.streams;
  j["span_us"] = s.span_us;
  j["gpu_us"] = s.gpu_us;
  j["simulated_pct"] = s.simulated_share();
  j["categories"] = std::move(cats);
  j["idle_us"] = s.idle_us;
  j["idle_kept"] = s.idle_kept;
  j["linked_by_launch"] = s.linked_by_launch;
  j["linked_by_external"] = s.linked_by_external;
  nlohmann::ordered_json why = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < kFixedReasons; ++i) {
    const ImportSummary::Category& c = s.fixed_reasons[i];
    if (c.ops == 0) continue;
    const auto r = static_cast<FixedReason>(i);
    why.push_back({{"reason", to_string(r)},
                   {"why", describe(r)},
                   {"fix", fix_hint(r)},
                   {"ops", c.ops},
                   {"gpu_us", c.gpu_us},
                   {"share_pct", pct(c.gpu_us, s.gpu_us)}});
  }
  j["not_simulated"] = std::move(why);
  j["warnings"] = warnings_json(s.warnings, "gpu_us");
  return j;
}

}  // namespace t3sim::workload
