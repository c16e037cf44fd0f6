// Imports a Chakra execution trace (ET), one file per rank, as a t3sim trace (trace.h). Each node
// becomes one op (chakra_nodes.h); data_deps and ctrl_deps become the op's deps; ops are listed in
// a dependency order that keeps the file order where it can, so the in-order streams never wait
// against a dependency. t3sim traces run one program on every rank: the ranks' programs are
// compared (node ids, names and durations may differ) and rank 0's is imported once (a file
// byte-identical to rank 0's is not even parsed); ranks that differ are an error unless one rank is
// chosen. Lenient by default (unmodelled nodes stay fixed, counted in grouped warnings); strict
// makes the first one a ConfigError. Built only with protobuf: chakra_import_available() says so.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "models/workload/chakra_summary.h"
#include "models/workload/dtype.h"
#include "models/workload/trace.h"

namespace t3sim::workload {

struct ChakraImportOptions {
  bool strict = false;              // an unmodelled node is a ConfigError
  Dtype comm_dtype = Dtype::kFp32;  // collectives' element type (Chakra records none)
  std::optional<int> rank;          // import this rank even when the ranks differ
  // Ranks in the group (the collectives' size); default: the number of rank files. More ranks
  // than files: the files given stand for all (e.g. rank 0's file alone).
  std::optional<int> group;
  // False: import the chosen rank's program without comparing it with the others' (one trace
  // per rank, for multi-rank replay: models/system/replay_ranks.h); the trace then records
  // metadata.rank.
  bool compare_ranks = true;
};

struct ChakraImport {
  Trace trace;
  ChakraSummary summary;
};

// False when this build has no protobuf; import_chakra then throws a UsageError saying so.
bool chakra_import_available();

// The rank files named by the arguments: each is a file, or a prefix P whose files P.0.et,
// P.1.et, ... (up to the first missing) are taken. Files named "<x>.<r>.et" are ordered by r.
// Contract: ranks with a gap (a prefix's P.3.et past a missing P.2.et; numbered files 0, 1, 3
// given one by one) are a ConfigError naming the missing rank's file.
std::vector<std::filesystem::path> chakra_rank_files(const std::vector<std::string>& args);

ChakraImport import_chakra(const std::vector<std::filesystem::path>& rank_files,
                           const ChakraImportOptions& options = {});

}  // namespace t3sim::workload
