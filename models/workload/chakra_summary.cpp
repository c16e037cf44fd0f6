#include "models/workload/chakra_summary.h"

#include <fmt/format.h>

namespace t3sim::workload {
namespace {

struct CategoryInfo {
  std::string_view name;
  bool simulated;
};
constexpr std::array<CategoryInfo, kChakraCategories> kCategories = {{
    {"gemm", true},
    {"collective", true},
    {"compute (no GEMM shape)", false},
    {"collective (not in traces)", false},
    {"send/recv", false},
    {"memory load/store", false},
    {"host and metadata", false},
}};

std::int64_t total_ops(const ChakraSummary& s, bool simulated_only) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < kChakraCategories; ++i) {
    if (!simulated_only || kCategories[i].simulated) n += s.categories[i].ops;
  }
  return n;
}

std::string rank_note(const ChakraSummary& s) {
  if (!s.symmetric) {
    return fmt::format("ranks DIFFER ({}); only rank {}'s program is replayed", s.difference,
                       s.imported_rank);
  }
  std::string note =
      fmt::format("every rank runs the same program ({} of {} other files byte-identical",
                  s.identical_files, s.files - 1);
  if (s.files < s.ranks) {
    note += fmt::format("; {} of the {} ranks' files given, the rest taken to be alike", s.files,
                        s.ranks);
  }
  return note + ")";
}

}  // namespace

std::string_view to_string(ChakraCategory c) {
  return kCategories.at(static_cast<std::size_t>(c)).name;
}
bool is_simulated(ChakraCategory c) {
  return kCategories.at(static_cast<std::size_t>(c)).simulated;
}

void ChakraSummary::add(ChakraCategory c, double duration_us) {
  Category& cat = categories.at(static_cast<std::size_t>(c));
  ++cat.ops;
  cat.duration_us += duration_us;
}

void ChakraSummary::warn(const std::string& reason, const std::string& detail,
                         const std::string& pointer, double duration_us) {
  add_warning(warnings, reason, detail, pointer, duration_us);
}

std::string format_summary(const ChakraSummary& s) {
  std::string out =
      fmt::format("Chakra ET {}: {} nodes from rank {} of {}; simulated {} of them; {}",
                  s.version.empty() ? "(no version)" : s.version, total_ops(s, false),
                  s.imported_rank, s.ranks, total_ops(s, true), rank_note(s));
  out += fmt::format("\n  {:<28} {:>8} {:>16}  {}", "category", "nodes", "duration_micros",
                     "replayed as");
  for (std::size_t i = 0; i < kChakraCategories; ++i) {
    const ChakraSummary::Category& c = s.categories[i];
    if (c.ops == 0) continue;
    out += fmt::format("\n  {:<28} {:>8} {:>16.1f}  {}", kCategories[i].name, c.ops, c.duration_us,
                       kCategories[i].simulated ? "simulated" : "fixed (duration_micros)");
  }
  return out;
}

std::vector<std::string> format_warnings(const ChakraSummary& s, const std::string& file) {
  std::vector<std::string> out =
      format_warning_lines(s.warnings, file, "node", "", "fixed ops of their duration_micros");
  if (s.dropped_deps > 0) {
    out.push_back(
        fmt::format("warning: {}: {} dependencies on nodes not in the file dropped "
                    "(first: {}); --strict refuses them",
                    file, s.dropped_deps, s.first_dropped_dep));
  }
  return out;
}

nlohmann::ordered_json to_json(const ChakraSummary& s) {
  nlohmann::ordered_json cats = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < kChakraCategories; ++i) {
    const ChakraSummary::Category& c = s.categories[i];
    if (c.ops == 0) continue;
    cats.push_back({{"category", kCategories[i].name},
                    {"simulated", kCategories[i].simulated},
                    {"nodes", c.ops},
                    {"duration_us", c.duration_us}});
  }
  nlohmann::ordered_json j;
  j["version"] = s.version;
  j["ranks"] = s.ranks;
  j["files"] = s.files;
  j["imported_rank"] = s.imported_rank;
  j["symmetric"] = s.symmetric;
  j["dropped_deps"] = s.dropped_deps;
  j["identical_files"] = s.identical_files;
  if (!s.symmetric) j["difference"] = s.difference;
  j["nodes"] = total_ops(s, false);
  j["simulated_nodes"] = total_ops(s, true);
  j["categories"] = std::move(cats);
  j["warnings"] = warnings_json(s.warnings, "duration_us");
  return j;
}

}  // namespace t3sim::workload
