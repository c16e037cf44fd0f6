// The versioned t3sim workload trace: metadata plus an ordered list of ops (op.h) forming a DAG.
// Version 1 is the only version (keys added since, such as process groups, are optional, so older
// files read unchanged: trace_groups.h). The parser is strict: unknown keys are rejected with "did
// you mean", and every error names the op id and the JSON pointer (e.g. /ops/3/shape/m). Writing is
// atomic (temp file + rename) and one op per line, so committed traces diff well.
// Contract: parse_trace(to_json(t)) == t for every valid trace t. Spec: traces/README.md,
// traces/schema.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/workload/op.h"

namespace t3sim::workload {

constexpr int kTraceVersion = 1;
constexpr std::int64_t kMaxSize = (std::int64_t{1} << 50) - 1;
constexpr int kMaxStream = 65535;
constexpr double kMaxMicroseconds = 1e12;                   // of a fixed or measured duration
constexpr std::size_t kMaxTraceOps = std::size_t{1} << 23;  // ~2 GB of ops in memory
// Ops a streamed file may hold before its "metadata" (they wait as JSON for the defaults it gives).
constexpr std::size_t kMaxHeldOps = std::size_t{1} << 16;

struct TraceMetadata {
  std::string source;       // "generator", "kineto", "hand", ...
  std::string model;        // model zoo name, when generated from one
  std::string description;  // free text
  std::optional<int> tp;    // default group size for collectives without tp_group
  std::optional<std::int64_t> tokens;
  std::optional<bool> sequence_parallel;
  // The global rank whose program this is (a Kineto profile's distributedInfo.rank, a Chakra
  // rank file's rank), when the trace is one rank's; a multi-rank replay orders ranks by it.
  std::optional<int> rank;
  // The process groups (communicators) the ops run on: each the global ranks in group order,
  // named by an op's process_group index (trace_groups.h). Empty when no op names one.
  std::vector<std::vector<int>> process_groups;
  bool operator==(const TraceMetadata&) const = default;
};

struct Trace {
  int version = kTraceVersion;
  TraceMetadata metadata;
  std::vector<Op> ops;
  bool operator==(const Trace&) const = default;
};

Trace parse_trace(const nlohmann::json& json, const std::string& file);
// A file starting with '{' is streamed op by op (models/workload/json_stream.h): memory is the
// ops read, not the text, so no file-size limit applies (kMaxTraceOps ops at most); a gzip file
// or one of another shape is read whole by sim/json_file.h, within its limits.
Trace read_trace(const std::filesystem::path& path);
nlohmann::json to_json(const Trace& trace);
// The text write_trace writes: to_json(trace) with one op per line.
std::string format_trace(const Trace& trace);
// Writes `path` through sim/atomic_file.h (atomic; special files refused, links followed); an I/O
// failure is a ConfigError naming the path.
void write_trace(const Trace& trace, const std::filesystem::path& path);

// Checks ids are unique and non-empty, every dep names an op of the trace and the deps form a DAG.
// Errors are ConfigErrors with the op's pointer (/ops/<i>/...); `file` labels them.
void check_trace(const Trace& trace, const std::string& file);

}  // namespace t3sim::workload
