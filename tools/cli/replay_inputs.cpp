#include "cli/replay_inputs.h"

#include <algorithm>
#include <fstream>
#include <numeric>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/workload/kineto_import.h"
#include "sim/errors.h"

namespace t3sim::cli {

bool is_kineto_file(const std::string& path) {
  if (path.ends_with(".pt.trace.json") || path.ends_with(".pt.trace.json.gz")) return true;
  std::ifstream in(path, std::ios::binary);
  std::string head(65536, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b) {
    return false;  // a compressed profile is named so, or given with --kineto
  }
  return head.find("\"traceEvents\"") != std::string::npos;
}

RankInputs load_rank_inputs(const std::vector<std::string>& files, bool kineto, bool strict) {
  std::vector<workload::Trace> traces;
  std::vector<std::vector<std::string>> warnings;
  workload::KinetoImportOptions o;
  o.strict = strict;
  for (const std::string& f : files) {
    if (kineto || is_kineto_file(f)) {
      workload::KinetoImport k = workload::import_kineto_file(f, o);
      warnings.push_back(workload::format_warnings(k.summary, f));
      traces.push_back(std::move(k.trace));
    } else {
      traces.push_back(workload::read_trace(f));
      warnings.emplace_back();
    }
  }
  std::vector<int> recorded;
  for (const workload::Trace& t : traces) {
    if (t.metadata.rank) recorded.push_back(*t.metadata.rank);
  }
  std::vector<int> sorted = recorded;
  std::sort(sorted.begin(), sorted.end());
  const bool by_rank = recorded.size() == traces.size() &&
                       std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  std::vector<size_t> order(files.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (by_rank) {
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return recorded[a] < recorded[b]; });
  }
  RankInputs out;
  for (size_t i = 0; i < order.size(); ++i) {
    out.files.push_back(files[order[i]]);
    out.traces.push_back(std::move(traces[order[i]]));
    out.warnings.push_back(std::move(warnings[order[i]]));
    out.ranks.push_back(by_rank ? sorted[i] : static_cast<int>(i));
  }
  return out;
}

std::size_t pick_rank(const RankInputs& inputs, int rank) {
  const auto it = std::find(inputs.ranks.begin(), inputs.ranks.end(), rank);
  if (it != inputs.ranks.end()) return static_cast<size_t>(it - inputs.ranks.begin());
  throw UsageError(
      fmt::format("--rank: no rank {} among the {} trace(s) given; ranks found: {} "
                  "(pick one of them, or leave out --rank to replay every rank)",
                  rank, inputs.ranks.size(), fmt::join(inputs.ranks, ", ")));
}

}  // namespace t3sim::cli
