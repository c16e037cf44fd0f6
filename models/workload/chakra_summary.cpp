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
    {"send/recv", true},
    {"compute (no GEMM shape)", false},
    {"collective (not simulated)", false},
    {"send/recv (not simulated)", false},
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
  if (!s.custom_collective.empty()) {
    return fmt::format("Chakra ET {} from rank {} of {}: {}",
                       s.version.empty() ? "(no version)" : s.version, s.imported_rank, s.ranks,
                       s.custom_collective);
  }
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
  const auto& coll = s.categories[static_cast<std::size_t>(ChakraCategory::kCollectiveFixed)];
  const auto& p2p = s.categories[static_cast<std::size_t>(ChakraCategory::kPointToPointFixed)];
  if (coll.ops + p2p.ops > 0) {
    out += fmt::format("\ncommunication not simulated: {} ops, {:.1f} us", coll.ops + p2p.ops,
                       coll.duration_us + p2p.duration_us);
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
  const std::int64_t host = s.categories[static_cast<std::size_t>(ChakraCategory::kHost)].ops;
  if (host > 0 && host == total_ops(s, false)) {
    out.push_back(fmt::format(
        "warning: {}: all {} nodes run on the host (is_cpu_op or metadata), so nothing is "
        "simulated: a PyTorch host trace converted without its Kineto trace; link them with "
        "`chakra_trace_link` and convert the result with `chakra_converter PyTorch`",
        file, host));
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
  if (!s.custom_collective.empty()) j["custom_collective"] = s.custom_collective;
  j["nodes"] = total_ops(s, false);
  j["simulated_nodes"] = total_ops(s, true);
  j["categories"] = std::move(cats);
  j["warnings"] = warnings_json(s.warnings, "duration_us");
  return j;
}

}  // namespace t3sim::workload
