// The traces `t3sim replay` runs: t3sim traces read as they are, and PyTorch (Kineto) profiles
// imported in memory (a `.pt.trace.json[.gz]` name, "traceEvents" near the top of a plain file,
// or any file with --kineto). Ranks: when every trace records a distinct rank (metadata.rank:
// a Kineto profile's distributedInfo.rank, a per-rank Chakra import's rank) the traces are
// ordered by it and `--rank N` names that rank; otherwise the order given is the rank.
// Contract: pick_rank of a rank not in the set is a UsageError listing the ranks found.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "models/workload/trace.h"

namespace t3sim::cli {

struct RankInputs {
  std::vector<std::string> files;                  // ordered by rank
  std::vector<workload::Trace> traces;             // traces[i] read from files[i]
  std::vector<int> ranks;                          // the rank of each
  std::vector<std::vector<std::string>> warnings;  // the Kineto import's, per trace
};

bool is_kineto_file(const std::string& path);

// Reads or imports every file (`kineto`: all are profiles; `strict`: the import's --strict).
RankInputs load_rank_inputs(const std::vector<std::string>& files, bool kineto, bool strict);

// The position of rank `rank` in `inputs`.
std::size_t pick_rank(const RankInputs& inputs, int rank);

}  // namespace t3sim::cli
