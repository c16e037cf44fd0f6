// What a Chakra ET import made of the trace: nodes per category (simulated by the models, or kept
// as fixed ops of their duration_micros), which rank was imported and whether every rank runs its
// program, and the grouped warnings for nodes that should be simulated but cannot be. The import
// prints it, so a trace in which nothing is simulated never passes for a simulated one.
// Contract: categories in a fixed order; warnings in the order their reason first occurred.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/workload/kineto_summary.h"

namespace t3sim::workload {

enum class ChakraCategory {
  kGemm,               // simulated
  kCollective,         // simulated
  kPointToPoint,       // simulated: COMM_SEND / COMM_RECV with a peer and a size
  kComputeFixed,       // fixed, warned: compute without a usable GEMM shape
  kCollectiveFixed,    // fixed, warned: gather, scatter, or no comm_size
  kPointToPointFixed,  // fixed, warned: COMM_SEND / COMM_RECV without a peer or a size
  kMemoryFixed,        // fixed, warned: MEM_LOAD / MEM_STORE
  kHost,               // fixed by design: is_cpu_op compute and metadata nodes
};
inline constexpr std::size_t kChakraCategories = 8;
std::string_view to_string(ChakraCategory c);
bool is_simulated(ChakraCategory c);

struct ChakraSummary {
  struct Category {
    std::int64_t ops = 0;
    double duration_us = 0;  // summed duration_micros
  };
  std::array<Category, kChakraCategories> categories{};
  std::string version;  // GlobalMetadata version of the imported rank
  int ranks = 0;        // in the group (metadata.tp)
  int files = 0;        // rank files read
  int imported_rank = 0;
  std::string imported_file;
  bool symmetric = true;                // every rank runs the imported rank's program
  int identical_files = 0;              // other ranks' files byte-identical to the imported one
  std::string difference;               // when not symmetric: the first difference found
  std::vector<ImportWarning> warnings;  // grouped by reason (ImportWarning: kineto_summary.h)
  std::int64_t dropped_deps = 0;        // deps on node ids not in the imported file (dropped)
  std::string first_dropped_dep;        // "node N -> M at POINTER"
  std::string custom_collective;        // what a custom collective implementation became

  void add(ChakraCategory c, double duration_us);
  void warn(const std::string& reason, const std::string& detail, const std::string& pointer,
            double duration_us);
};

// "N nodes imported from rank R of K (...); simulated S of N", one line per category and, when
// communication nodes stay fixed, "communication not simulated: N ops, X us".
std::string format_summary(const ChakraSummary& s);
// "warning: FILE: N nodes (X us): REASON; kept as fixed ops (first: DETAIL at POINTER; ...)".
std::vector<std::string> format_warnings(const ChakraSummary& s, const std::string& file);
nlohmann::ordered_json to_json(const ChakraSummary& s);

}  // namespace t3sim::workload
