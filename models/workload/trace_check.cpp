// check_trace (declared in trace.h): id uniqueness, dependency resolution and cycle detection,
// and that process groups name rows of the metadata's table (trace_groups.h).
#include <cstdint>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "models/workload/trace.h"
#include "models/workload/trace_groups.h"
#include "sim/errors.h"
#include "sim/strict_json.h"

namespace t3sim::workload {
namespace {

constexpr std::size_t kMaxCycleShown = 8;

// Returns the ops of one dependency cycle (each waits for the next, the last for the first), or
// nullopt for a DAG. Iterative depth-first search, so deep chains cannot overflow the stack.
std::optional<std::vector<std::size_t>> find_cycle(
    const std::vector<std::vector<std::size_t>>& deps) {
  enum class Mark : std::uint8_t { kNew, kOnPath, kDone };
  std::vector<Mark> mark(deps.size(), Mark::kNew);
  std::vector<std::pair<std::size_t, std::size_t>> path;  // (op, next dep to visit)
  for (std::size_t root = 0; root < deps.size(); ++root) {
    if (mark[root] != Mark::kNew) continue;
    mark[root] = Mark::kOnPath;
    path.emplace_back(root, 0);
    while (!path.empty()) {
      const std::size_t op = path.back().first;
      if (path.back().second == deps[op].size()) {
        mark[op] = Mark::kDone;
        path.pop_back();
        continue;
      }
      const std::size_t next = deps[op][path.back().second++];
      if (mark[next] == Mark::kOnPath) {
        std::vector<std::size_t> cycle;
        bool inside = false;
        for (const auto& [on_path, unused] : path) {
          inside = inside || on_path == next;
          if (inside) cycle.push_back(on_path);
        }
        return cycle;
      }
      if (mark[next] == Mark::kNew) {
        mark[next] = Mark::kOnPath;
        path.emplace_back(next, 0);
      }
    }
  }
  return std::nullopt;
}

std::string describe_cycle(const Trace& trace, const std::vector<std::size_t>& cycle) {
  std::string text;
  for (std::size_t i = 0; i < cycle.size() && i < kMaxCycleShown; ++i) {
    text += "'" + trace.ops[cycle[i]].id + "' -> ";
  }
  if (cycle.size() > kMaxCycleShown) text += "... -> ";
  return text + "'" + trace.ops[cycle.front()].id + "'";
}

std::vector<std::string> all_ids(const Trace& trace) {
  std::vector<std::string> ids;
  ids.reserve(trace.ops.size());
  for (const Op& op : trace.ops) ids.push_back(op.id);
  return ids;
}

}  // namespace

void check_trace(const Trace& trace, const std::string& file) {
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < trace.ops.size(); ++i) {
    const std::string& id = trace.ops[i].id;
    const std::string pointer = fmt::format("/ops/{}/id", i);
    if (id.empty()) throw ConfigError(file, pointer, "op has an empty id; give it a unique name");
    if (const auto [it, fresh] = index.emplace(id, i); !fresh) {
      throw ConfigError(file, pointer,
                        fmt::format("op '{}': duplicate id, first used by /ops/{}; make ids unique",
                                    id, it->second));
    }
  }
  std::vector<std::vector<std::size_t>> deps(trace.ops.size());
  for (std::size_t i = 0; i < trace.ops.size(); ++i) {
    const Op& op = trace.ops[i];
    for (std::size_t j = 0; j < op.deps.size(); ++j) {
      const auto it = index.find(op.deps[j]);
      if (it == index.end()) {
        throw ConfigError(file, fmt::format("/ops/{}/deps/{}", i, j),
                          fmt::format("op '{}' depends on '{}', which is not in the trace{}; fix "
                                      "the id or add that op",
                                      op.id, op.deps[j], did_you_mean(op.deps[j], all_ids(trace))));
      }
      deps[i].push_back(it->second);
    }
  }
  if (const auto cycle = find_cycle(deps)) {
    const std::size_t first = cycle->front();
    throw ConfigError(file, fmt::format("/ops/{}/deps", first),
                      fmt::format("op '{}' is on a dependency cycle {} (each waits for the next); "
                                  "remove one of these deps",
                                  trace.ops[first].id, describe_cycle(trace, *cycle)));
  }
  check_process_groups(trace, file);
}

}  // namespace t3sim::workload
