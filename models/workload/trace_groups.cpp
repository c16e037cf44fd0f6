#include "models/workload/trace_groups.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/errors.h"

namespace t3sim::workload {
namespace {

// What is wrong with process group `ranks` (after the rows `earlier`), or "" when it is valid.
std::string group_problem(const std::vector<int>& ranks, std::optional<int> rank,
                          const std::vector<std::vector<int>>& earlier) {
  if (ranks.empty())
    return "a process group must be a non-empty array of global ranks, e.g. [0, 1]";
  std::vector<int> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  const std::string text = fmt::format("process group [{}]", fmt::join(ranks, ", "));
  if (sorted.front() < 0 || sorted.back() > kMaxRank) {
    return fmt::format("{} names a rank outside [0, {}]", text, kMaxRank);
  }
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return text + " names a rank twice; list each rank once";
  }
  if (rank && !std::binary_search(sorted.begin(), sorted.end(), *rank)) {
    return fmt::format(
        "{} does not hold the trace's rank {}; a trace lists only the groups its "
        "rank belongs to",
        text, *rank);
  }
  if (std::find(earlier.begin(), earlier.end(), ranks) != earlier.end()) {
    return text + " is listed twice; keep one row and point the ops at it";
  }
  return "";
}

}  // namespace

void read_rank_and_groups(const ObjectReader& r, TraceMetadata& m) {
  if (r.has("rank")) m.rank = static_cast<int>(r.integer("rank", 0, kMaxRank));
  if (!r.has("process_groups")) return;
  const nlohmann::json& rows = r.get("process_groups");
  if (!rows.is_array()) {
    r.fail("process_groups", "\"process_groups\" must be an array of rank arrays");
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string pointer = r.pointer("process_groups") + "/" + std::to_string(i);
    if (!rows[i].is_array()) {
      throw ConfigError(r.file(), pointer, "a process group must be an array of global ranks");
    }
    std::vector<int> ranks;
    for (std::size_t j = 0; j < rows[i].size(); ++j) {
      ranks.push_back(static_cast<int>(read_integer(rows[i][j], 0, kMaxRank, r.file(),
                                                    pointer + "/" + std::to_string(j), "rank")));
    }
    const std::string problem = group_problem(ranks, m.rank, m.process_groups);
    if (!problem.empty()) throw ConfigError(r.file(), pointer, problem);
    m.process_groups.push_back(std::move(ranks));
  }
}

void read_op_group(const ObjectReader& r, Op& op, const TraceMetadata& metadata) {
  if (!r.has("process_group")) return;
  if (!is_collective(op.kind)) {
    r.fail("process_group",
           fmt::format("\"process_group\" does not apply to a {} op; remove it or change \"kind\"",
                       to_string(op.kind)));
  }
  const auto rows = static_cast<std::int64_t>(metadata.process_groups.size());
  if (rows == 0) {
    r.fail("process_group",
           "\"process_group\" names a row of metadata \"process_groups\", which is missing; add "
           "the group's ranks there");
  }
  const int index = static_cast<int>(r.integer("process_group", 0, rows - 1));
  const int size =
      static_cast<int>(metadata.process_groups[static_cast<std::size_t>(index)].size());
  if (r.has("tp_group") && op.tp_group != size) {
    r.fail("tp_group", fmt::format("\"tp_group\" is {} but process group {} holds {} ranks; make "
                                   "them agree (or drop \"tp_group\")",
                                   *op.tp_group, index, size));
  }
  op.process_group = index;
  op.tp_group = size;
}

int intern_process_group(TraceMetadata& metadata, std::vector<int> ranks) {
  auto& rows = metadata.process_groups;
  const auto found = std::find(rows.begin(), rows.end(), ranks);
  if (found != rows.end()) return static_cast<int>(found - rows.begin());
  rows.push_back(std::move(ranks));
  return static_cast<int>(rows.size()) - 1;
}

std::span<const int> op_group_ranks(const Trace& trace, const Op& op) {
  if (!op.process_group) return {};
  return trace.metadata.process_groups.at(static_cast<std::size_t>(*op.process_group));
}

std::vector<std::vector<int>> trace_group_ranks(const Trace& trace) {
  std::vector<std::vector<int>> out;
  if (trace.metadata.process_groups.empty()) return out;
  out.reserve(trace.ops.size());
  for (const Op& op : trace.ops) {
    const std::span<const int> ranks = op_group_ranks(trace, op);
    out.emplace_back(ranks.begin(), ranks.end());
  }
  return out;
}

void check_process_groups(const Trace& trace, const std::string& file) {
  const auto& rows = trace.metadata.process_groups;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::vector<std::vector<int>> earlier(rows.begin(), rows.begin() + i);
    const std::string problem = group_problem(rows[i], trace.metadata.rank, earlier);
    if (!problem.empty()) {
      throw ConfigError(file, fmt::format("/metadata/process_groups/{}", i), problem);
    }
  }
  for (std::size_t i = 0; i < trace.ops.size(); ++i) {
    const Op& op = trace.ops[i];
    if (!op.process_group) continue;
    const int g = *op.process_group;
    const bool named = g >= 0 && static_cast<std::size_t>(g) < rows.size();
    if (!is_collective(op.kind) || !named ||
        op.tp_group != static_cast<int>(rows[static_cast<std::size_t>(g)].size())) {
      throw ConfigError(file, fmt::format("/ops/{}/process_group", i),
                        fmt::format("op '{}': process group {} is not a row of the {} in "
                                    "metadata.process_groups of its tp_group's size, or the op "
                                    "is not communication; fix the importer's output",
                                    op.id, g, rows.size()));
    }
  }
}

}  // namespace t3sim::workload
