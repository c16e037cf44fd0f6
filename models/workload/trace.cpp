#include "models/workload/trace.h"

#include <fmt/format.h>

#include "models/workload/json_stream.h"
#include "models/workload/trace_groups.h"
#include "sim/atomic_file.h"
#include "sim/errors.h"
#include "sim/strict_json.h"

namespace t3sim::workload {
namespace {

constexpr std::int64_t kMaxGroup = std::int64_t{1} << 20;

std::vector<std::string> op_keys() {
  return {"id",          "kind",    "name", "shape",    "bytes",        "duration_us",
          "dtype",       "stream",  "deps", "tp_group", "sublayer",     "pass",
          "measured_us", "idle_us", "peer", "root",     "process_group"};
}

template <typename Enum>
Enum read_enum(const ObjectReader& r, std::string_view key,
               std::optional<Enum> (*parse)(std::string_view),
               const std::vector<std::string>& names) {
  const std::string text = r.string(key);
  if (const std::optional<Enum> value = parse(text)) return *value;
  r.fail(key, fmt::format("\"{}\" is \"{}\"{}; use one of: {}", key, text,
                          did_you_mean(text, names), join(names, ", ")));
}

// Rejects a payload key that does not belong to the op's kind.
void check_applies(const ObjectReader& r, std::string_view key, bool applies, OpKind kind) {
  if (!applies && r.has(key)) {
    r.fail(key, fmt::format("\"{}\" does not apply to a {} op; remove it or change \"kind\"", key,
                            to_string(kind)));
  }
}

GemmShape read_shape(const ObjectReader& op) {
  const ObjectReader r(op.get("shape"), op.file(), op.pointer("shape"), op.context() + " shape");
  r.allow_only({"m", "n", "k", "batch"});
  GemmShape shape;
  shape.m = r.integer("m", 1, kMaxSize);
  shape.n = r.integer("n", 1, kMaxSize);
  shape.k = r.integer("k", 1, kMaxSize);
  if (r.has("batch")) shape.batch = r.integer("batch", 1, kMaxSize);
  if (shape.batch > kMaxSize / shape.m) {  // M x batch rows of output must fit a trace size
    r.fail("batch", fmt::format("m x batch ({} x {}) exceeds {} (2^50 - 1), the most rows a GEMM "
                                "may have; split the op",
                                shape.m, shape.batch, kMaxSize));
  }
  return shape;
}

// send/recv: "peer" (required), the other rank's offset in the group; broadcast/reduce: "root"
// (default 0). Both name ranks of the op's group, so they come after tp_group.
void read_ranks(const ObjectReader& r, Op& op) {
  check_applies(r, "peer", is_point_to_point(op.kind), op.kind);
  check_applies(r, "root", is_rooted(op.kind), op.kind);
  const std::int64_t group = op.tp_group.value_or(1);
  if (is_point_to_point(op.kind)) {
    if (group < 2) r.fail("tp_group", "a send or recv needs a group of at least 2 ranks");
    op.peer = static_cast<int>(r.integer("peer", 1, group - 1));
  }
  if (is_rooted(op.kind) && r.has("root")) {
    op.root = static_cast<int>(r.integer("root", 0, group - 1));
  }
}

void read_payload(const ObjectReader& r, Op& op, const TraceMetadata& metadata) {
  const bool gemm = op.kind == OpKind::kGemm;
  const bool collective = is_collective(op.kind);
  const bool sized = collective || op.kind == OpKind::kMemory;
  const bool fixed = op.kind == OpKind::kFixed;
  check_applies(r, "shape", gemm, op.kind);
  check_applies(r, "bytes", sized, op.kind);
  check_applies(r, "duration_us", fixed, op.kind);
  if (gemm) op.shape = read_shape(r);
  if (sized) op.bytes = r.integer("bytes", 1, kMaxSize);
  if (fixed) op.duration_us = r.number("duration_us", 0, kMaxMicroseconds);
  if (gemm || collective || r.has("dtype")) {
    op.dtype = read_enum<Dtype>(r, "dtype", parse_dtype, dtype_names());
  }
  if (r.has("tp_group")) {
    op.tp_group = static_cast<int>(r.integer("tp_group", 1, kMaxGroup));
  } else if (collective && r.has("process_group")) {
    // sized by its process group (read_op_group)
  } else if (collective && metadata.tp) {
    op.tp_group = metadata.tp;
  } else if (collective) {
    r.fail("tp_group",
           "a collective needs its group size; add \"tp_group\" to the op or \"tp\" "
           "to the trace metadata");
  }
  read_op_group(r, op, metadata);
  read_ranks(r, op);
}

void read_optional(const ObjectReader& r, Op& op) {
  op.stream = static_cast<int>(r.integer("stream", 0, kMaxStream));
  if (r.has("deps")) {
    const nlohmann::json& deps = r.get("deps");
    if (!deps.is_array()) r.fail("deps", "\"deps\" must be an array of op ids");
    for (std::size_t j = 0; j < deps.size(); ++j) {
      if (!deps[j].is_string() || deps[j].get<std::string>().empty()) {
        throw ConfigError(r.file(), r.pointer("deps") + "/" + std::to_string(j),
                          r.context() + ": each dep must be a non-empty op id string");
      }
      op.deps.push_back(deps[j].get<std::string>());
    }
  }
  if (r.has("sublayer")) {
    op.sublayer =
        read_enum<Sublayer>(r, "sublayer", parse_sublayer, {"ip", "attn", "op", "fc1", "fc2"});
  }
  if (r.has("pass")) op.pass = read_enum<Pass>(r, "pass", parse_pass, {"fwd", "bwd"});
  if (r.has("measured_us")) op.measured_us = r.number("measured_us", 0, kMaxMicroseconds);
  if (r.has("idle_us")) op.idle_us = r.number("idle_us", 0, kMaxMicroseconds);
  if (r.has("name")) op.name = r.string("name");
}

Op read_op(const nlohmann::json& json, const std::string& file, std::size_t index,
           const TraceMetadata& metadata) {
  std::string context = fmt::format("op #{}", index);
  if (json.is_object() && json.contains("id") && json["id"].is_string()) {
    context = fmt::format("op '{}'", json["id"].get<std::string>());
  }
  const ObjectReader r(json, file, "/ops/" + std::to_string(index), context);
  r.allow_only(op_keys());
  Op op;
  op.id = r.string("id");
  if (op.id.empty()) r.fail("id", "\"id\" is empty; give the op a unique name");
  op.kind = read_enum<OpKind>(r, "kind", parse_op_kind, op_kind_names());
  read_payload(r, op, metadata);
  read_optional(r, op);
  return op;
}

TraceMetadata read_metadata(const ObjectReader& top) {
  TraceMetadata m;
  if (!top.has("metadata")) return m;
  const ObjectReader r(top.get("metadata"), top.file(), "/metadata", "trace metadata");
  r.allow_only({"source", "model", "description", "tp", "tokens", "sequence_parallel", "rank",
                "process_groups"});
  if (r.has("source")) m.source = r.string("source");
  if (r.has("model")) m.model = r.string("model");
  if (r.has("description")) m.description = r.string("description");
  if (r.has("tp")) m.tp = static_cast<int>(r.integer("tp", 1, kMaxGroup));
  if (r.has("tokens")) m.tokens = r.integer("tokens", 1, kMaxSize);
  if (r.has("sequence_parallel")) m.sequence_parallel = r.boolean("sequence_parallel");
  read_rank_and_groups(r, m);
  return m;
}

// Keys in reading order; Json is nlohmann::json (sorted keys) or nlohmann::ordered_json.
template <typename Json>
Json op_to_json(const Op& op) {
  Json j;
  j["id"] = op.id;
  j["kind"] = to_string(op.kind);
  if (op.kind == OpKind::kGemm) {
    j["shape"] = Json{{"m", op.shape.m}, {"n", op.shape.n}, {"k", op.shape.k}};
    if (op.shape.batch != 1) j["shape"]["batch"] = op.shape.batch;
  } else if (op.kind == OpKind::kFixed) {
    j["duration_us"] = op.duration_us;
  } else {
    j["bytes"] = op.bytes;
  }
  if (op.dtype) j["dtype"] = to_string(*op.dtype);
  j["stream"] = op.stream;
  j["deps"] = op.deps;
  if (op.tp_group) j["tp_group"] = *op.tp_group;
  if (op.process_group) j["process_group"] = *op.process_group;
  if (is_point_to_point(op.kind)) j["peer"] = op.peer;
  if (is_rooted(op.kind) && op.root != 0) j["root"] = op.root;
  if (op.sublayer) j["sublayer"] = to_string(*op.sublayer);
  if (op.pass) j["pass"] = to_string(*op.pass);
  if (op.measured_us) j["measured_us"] = *op.measured_us;
  if (op.idle_us > 0) j["idle_us"] = op.idle_us;
  if (!op.name.empty()) j["name"] = op.name;
  return j;
}

template <typename Json>
Json metadata_to_json(const TraceMetadata& m) {
  Json j = Json::object();
  if (!m.source.empty()) j["source"] = m.source;
  if (!m.model.empty()) j["model"] = m.model;
  if (!m.description.empty()) j["description"] = m.description;
  if (m.tp) j["tp"] = *m.tp;
  if (m.tokens) j["tokens"] = *m.tokens;
  if (m.sequence_parallel) j["sequence_parallel"] = *m.sequence_parallel;
  if (m.rank) j["rank"] = *m.rank;
  if (!m.process_groups.empty()) j["process_groups"] = m.process_groups;
  return j;
}

// The top level of a trace, but "ops": its keys, version and metadata.
TraceMetadata read_top(const ObjectReader& top) {
  top.allow_only({"version", "metadata", "ops"});
  const std::int64_t version = top.integer("version", 0, 1 << 30);
  if (version != kTraceVersion) {
    top.fail("version", fmt::format("unsupported trace version {}; this build reads version {} "
                                    "(traces/README.md): convert the trace to it",
                                    version, kTraceVersion));
  }
  return read_metadata(top);
}

void add_op(Trace& trace, const nlohmann::json& json, const std::string& file, std::size_t index) {
  if (trace.ops.size() >= kMaxTraceOps) {
    throw ConfigError(file, "/ops/" + std::to_string(index),
                      fmt::format("a trace holds at most {} ops; split the trace", kMaxTraceOps));
  }
  trace.ops.push_back(read_op(json, file, index, trace.metadata));
}

// A file streamed op by op (models/workload/json_stream.h): ops are read as they arrive once the
// metadata they default from is known (t3sim writes it first); ops before it are held as JSON.
Trace stream_trace(const std::filesystem::path& path) {
  const std::string file = path.string();
  Trace trace;
  bool metadata_known = false;
  std::vector<nlohmann::json> held;
  const auto take_held = [&] {
    for (std::size_t i = 0; i < held.size(); ++i) add_op(trace, held[i], file, i);
    held.clear();
  };
  const auto on_op = [&](nlohmann::json& op, std::size_t i, const nlohmann::json& members) {
    if (!metadata_known && members.contains("metadata")) {
      trace.metadata = read_metadata(ObjectReader(members, file, "", "trace"));
      metadata_known = true;
      take_held();
    }
    if (metadata_known) return add_op(trace, op, file, i);
    if (held.size() >= kMaxHeldOps) {
      throw ConfigError(file, "/ops/" + std::to_string(i),
                        fmt::format("over {} ops before the trace's \"metadata\"; write "
                                    "\"metadata\" (\"{{}}\" if empty) before \"ops\"",
                                    kMaxHeldOps));
    }
    held.push_back(std::move(op));
  };
  const nlohmann::json top = stream_json_object(path, "ops", on_op);
  const ObjectReader r(top, file, "", "trace");
  const TraceMetadata metadata = read_top(r);
  if (!r.get("ops").is_array()) r.fail("ops", "\"ops\" must be an array of op objects");
  if (!metadata_known) {
    trace.metadata = metadata;
    take_held();
  }
  check_trace(trace, file);
  return trace;
}

}  // namespace

Trace parse_trace(const nlohmann::json& json, const std::string& file) {
  const ObjectReader top(json, file, "", "trace");
  Trace trace;
  trace.metadata = read_top(top);
  const nlohmann::json& ops = top.get("ops");
  if (!ops.is_array()) top.fail("ops", "\"ops\" must be an array of op objects");
  trace.ops.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) add_op(trace, ops[i], file, i);
  check_trace(trace, file);
  return trace;
}

Trace read_trace(const std::filesystem::path& path) {
  if (is_streamable_json(path)) return stream_trace(path);
  return parse_trace(read_json_file(path), path.string());
}

nlohmann::json to_json(const Trace& trace) {
  nlohmann::json ops = nlohmann::json::array();
  for (const Op& op : trace.ops) ops.push_back(op_to_json<nlohmann::json>(op));
  return {{"version", trace.version},
          {"metadata", metadata_to_json<nlohmann::json>(trace.metadata)},
          {"ops", ops}};
}

namespace {

// format_trace's text in three parts: the head up to the ops array, op i's line, the tail.
std::string trace_head(const Trace& trace) {
  return fmt::format("{{\n  \"version\": {},\n  \"metadata\": {},\n  \"ops\": [", trace.version,
                     metadata_to_json<nlohmann::ordered_json>(trace.metadata).dump());
}

void append_op_line(const Trace& trace, std::size_t i, std::string& out) {
  out += i == 0 ? "\n    " : ",\n    ";
  out += op_to_json<nlohmann::ordered_json>(trace.ops[i]).dump();
}

const char* trace_tail(const Trace& trace) { return trace.ops.empty() ? "]\n}\n" : "\n  ]\n}\n"; }

}  // namespace

std::string format_trace(const Trace& trace) {
  std::string out = trace_head(trace);
  for (std::size_t i = 0; i < trace.ops.size(); ++i) append_op_line(trace, i, out);
  out += trace_tail(trace);
  return out;
}

// The text of format_trace, written about 1 MiB at a time (a trace of a million ops is never held
// as one string).
void write_trace(const Trace& trace, const std::filesystem::path& path) {
  constexpr std::size_t kPiece = std::size_t{1} << 20;
  std::size_t next = 0;  // the next op to format
  bool started = false;
  write_file_atomic(path, [&](std::string& out) {
    if (!started) {
      started = true;
      out = trace_head(trace);
    }
    for (; next < trace.ops.size() && out.size() < kPiece; ++next) append_op_line(trace, next, out);
    if (next < trace.ops.size()) return true;
    out += trace_tail(trace);
    return false;
  });
}

}  // namespace t3sim::workload
