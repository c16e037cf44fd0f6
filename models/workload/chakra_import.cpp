#include "models/workload/chakra_import.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <queue>
#include <unordered_map>

#include <fmt/format.h>

#include "models/workload/chakra_custom.h"
#include "models/workload/chakra_nodes.h"
#include "models/workload/chakra_stream.h"
#include "sim/errors.h"

namespace t3sim::workload {
namespace {

constexpr int kMaxRanks = 1 << 20;

// One rank's nodes as ops, in dependency order.
struct Program {
  std::vector<Op> ops;
  std::string version;
};

// Dependencies on node ids the file does not hold: dropped (lenient) and counted, or an error.
struct Dropped {
  bool strict = false;
  std::int64_t count = 0;
  std::string first;  // "node N -> M at POINTER"
};

// What the import needs of every node before converting any: its id, its dependency ids (data
// deps, then control deps) and whether it is a host matmul (a launcher); under 100 B a node, most
// of it the id index, where a parsed node takes about 6x its record.
struct Skeleton {
  std::vector<std::uint64_t> ids;
  std::vector<std::uint64_t> dep_ids;     // every node's data deps, then its ctrl deps
  std::vector<std::size_t> dep_start;     // node i's deps: [dep_start[i], dep_start[i + 1])
  std::vector<std::uint32_t> data_count;  // how many of them are data deps
  std::vector<bool> host_matmul;
  std::unordered_map<std::uint64_t, std::size_t> index;  // id -> node
};

Skeleton skeleton(const ChakraFile& f) {
  Skeleton k;
  const std::size_t n = f.size();
  k.ids.reserve(n);
  k.dep_start.reserve(n + 1);
  k.data_count.reserve(n);
  k.host_matmul.reserve(n);
  k.index.reserve(n);
  ChakraProtoMsg::Node node;
  for (std::size_t i = 0; i < n; ++i) {
    f.node_into(i, node);
    if (const auto [it, fresh] = k.index.emplace(node.id(), i); !fresh) {
      throw ConfigError(f.file, chakra_node_pointer(i) + "/id",
                        fmt::format("node id {} is used twice (first at {}); make ids unique",
                                    node.id(), chakra_node_pointer(it->second)));
    }
    k.ids.push_back(node.id());
    k.dep_start.push_back(k.dep_ids.size());
    k.dep_ids.insert(k.dep_ids.end(), node.data_deps().begin(), node.data_deps().end());
    k.data_count.push_back(static_cast<std::uint32_t>(node.data_deps_size()));
    k.dep_ids.insert(k.dep_ids.end(), node.ctrl_deps().begin(), node.ctrl_deps().end());
    k.host_matmul.push_back(is_host_matmul(node));
  }
  k.dep_start.push_back(k.dep_ids.size());
  return k;
}

// The deps of node `i` as indices into the file's nodes: data deps, then control deps, each once.
// `added[d] == i` marks node d as taken for node i (one pass, linear in the deps).
std::vector<std::size_t> node_deps(const ChakraFile& f, const Skeleton& k, std::size_t i,
                                   std::vector<std::size_t>& added, Dropped& dropped) {
  std::vector<std::size_t> deps;
  for (std::size_t j = k.dep_start[i]; j < k.dep_start[i + 1]; ++j) {
    const std::uint64_t id = k.dep_ids[j];
    const auto it = k.index.find(id);
    if (it == k.index.end()) {
      const std::size_t at = j - k.dep_start[i];
      const bool data = at < k.data_count[i];
      const std::string pointer =
          fmt::format("{}/{}/{}", chakra_node_pointer(i), data ? "data_deps" : "ctrl_deps",
                      data ? at : at - k.data_count[i]);
      if (dropped.strict) {
        throw ConfigError(f.file, pointer,
                          fmt::format("node {} depends on node {}, which is not in the file; "
                                      "fix the id or remove the dep (without --strict it is "
                                      "dropped with a warning)",
                                      k.ids[i], id));
      }
      if (dropped.count++ == 0)
        dropped.first = fmt::format("node {} -> {} at {}", k.ids[i], id, pointer);
      continue;
    }
    if (added[it->second] != i) {
      added[it->second] = i;
      deps.push_back(it->second);
    }
  }
  return deps;
}

// Kahn's order, taking the earliest file position among the ready nodes, so a file already in
// dependency order keeps it; a cycle is a ConfigError naming its first node.
std::vector<std::size_t> dependency_order(const ChakraFile& f, const Skeleton& k,
                                          const std::vector<std::vector<std::size_t>>& deps) {
  const std::size_t n = deps.size();
  std::vector<std::size_t> waiting(n, 0);
  std::vector<std::vector<std::size_t>> users(n);
  for (std::size_t i = 0; i < n; ++i) {
    waiting[i] = deps[i].size();
    for (std::size_t d : deps[i]) users[d].push_back(i);
  }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  std::vector<std::size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (std::size_t u : users[i]) {
      if (--waiting[u] == 0) ready.push(u);
    }
  }
  if (order.size() != n) {
    const auto it = std::find_if(waiting.begin(), waiting.end(), [](std::size_t w) { return w; });
    const auto i = static_cast<std::size_t>(it - waiting.begin());
    throw ConfigError(f.file, chakra_node_pointer(i) + "/data_deps",
                      fmt::format("node {} waits on a dependency cycle (data_deps and ctrl_deps); "
                                  "remove one of the cycle's deps",
                                  k.ids[i]));
  }
  return order;
}

// The host matmul among node `i`'s ctrl deps, if any, parsed into `parent`.
ChakraLauncher launcher_of(const ChakraFile& f, const Skeleton& k, std::size_t i,
                           ChakraProtoMsg::Node& parent) {
  for (std::size_t j = k.dep_start[i] + k.data_count[i]; j < k.dep_start[i + 1]; ++j) {
    const auto it = k.index.find(k.dep_ids[j]);
    if (it == k.index.end() || !k.host_matmul[it->second]) continue;  // (node_deps reports a miss)
    f.node_into(it->second, parent);
    return {&parent, it->second};
  }
  return {};
}

// The imported rank's summary, filled as its nodes convert (other ranks are only compared): each
// node's category and time, and the warning (or, with --strict, the error) for an unmodelled one.
struct Tally {
  const ChakraImportOptions& options;
  ChakraSummary& summary;

  void operator()(const ChakraOp& m) const {
    const Op& op = m.op;
    const double us = op.kind == OpKind::kFixed ? op.duration_us : op.measured_us.value_or(0);
    summary.add(m.category, us);
    if (m.unmodelled.empty()) return;
    if (options.strict) {
      throw ConfigError(summary.imported_file, m.pointer,
                        fmt::format("{} is one of the {}; drop --strict to keep it as a fixed "
                                    "op of its duration_micros",
                                    m.detail, m.unmodelled));
    }
    summary.warn(m.unmodelled, m.detail, m.pointer, us);
  }
};

// Converts the nodes in dependency order, one parsed node (and its launcher) at a time.
Program convert_program(const ChakraFile& f, Dtype comm_dtype, const ChakraRanks& ranks,
                        Dropped& dropped, const Tally* counted = nullptr) {
  if (f.size() == 0) {
    throw ConfigError(f.file, "/records/1",
                      "the file has a GlobalMetadata record but no nodes; give a rank's ET");
  }
  const Skeleton k = skeleton(f);
  std::vector<std::vector<std::size_t>> deps;
  deps.reserve(f.size());
  std::vector<std::size_t> added(f.size(), f.size());
  for (std::size_t i = 0; i < f.size(); ++i) deps.push_back(node_deps(f, k, i, added, dropped));
  std::vector<std::size_t>().swap(added);
  const std::vector<std::size_t> order = dependency_order(f, k, deps);
  Program p;
  p.version = f.metadata.version();
  p.ops.reserve(order.size());
  std::vector<std::size_t> placed(f.size());  // node -> its op's index in p.ops
  ChakraProtoMsg::Node node;
  ChakraProtoMsg::Node parent;
  for (const std::size_t i : order) {
    f.node_into(i, node);
    ChakraOp m =
        convert_chakra_node(node, i, f.file, comm_dtype, ranks, launcher_of(f, k, i, parent));
    for (const std::size_t d : deps[i]) m.op.deps.push_back(p.ops[placed[d]].id);
    std::vector<std::size_t>().swap(deps[i]);
    placed[i] = p.ops.size();
    if (counted != nullptr) (*counted)(m);
    p.ops.push_back(std::move(m.op));
  }
  return p;
}

// The first way `b` differs from `a` as a program ("" when none): kinds, payloads, streams and
// dependency structure; ids, names and durations (measurements) may differ.
std::string program_difference(const Program& a, const Program& b) {
  if (a.ops.size() != b.ops.size()) {
    return fmt::format("{} nodes against {}", b.ops.size(), a.ops.size());
  }
  const auto positions = [](const Program& p) {
    std::unordered_map<std::string, std::size_t> pos;
    for (std::size_t i = 0; i < p.ops.size(); ++i) pos.emplace(p.ops[i].id, i);
    return pos;
  };
  const auto pa = positions(a);
  const auto pb = positions(b);
  const auto canonical = [](Op op, const std::unordered_map<std::string, std::size_t>& pos) {
    for (std::string& d : op.deps) d = std::to_string(pos.at(d));
    op.id.clear();
    op.name.clear();
    op.duration_us = 0;
    op.measured_us.reset();
    return op;
  };
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    if (!(canonical(a.ops[i], pa) == canonical(b.ops[i], pb))) {
      return fmt::format("op {} is {} '{}' against {} '{}'", i, to_string(b.ops[i].kind),
                         b.ops[i].id, to_string(a.ops[i].kind), a.ops[i].id);
    }
  }
  return "";
}

// The rank of a file named "<x>.<r>.et", else nullopt.
std::optional<int> rank_of(const std::filesystem::path& path) {
  if (path.extension() != ".et") return std::nullopt;
  const std::string stem = path.stem().string();
  const std::size_t dot = stem.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  int rank = 0;
  const char* first = stem.data() + dot + 1;
  const char* last = stem.data() + stem.size();
  const auto [end, ec] = std::from_chars(first, last, rank);
  if (ec != std::errc() || end != last || first == last || rank < 0) return std::nullopt;
  return rank;
}

// Refuses a prefix whose rank files stop at `missing` (P.<missing>.et) while a later rank's file
// P.<r>.et exists: the group would be cut short at the gap.
void refuse_prefix_gap(const std::string& prefix, int missing) {
  const std::filesystem::path p(prefix);
  const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : ".";
  const std::string base = p.filename().string();
  std::optional<int> later;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::optional<int> r = rank_of(it->path());
    const std::string stem = it->path().stem().string();
    if (r && *r > missing && stem.size() > base.size() && stem.starts_with(base) &&
        stem[base.size()] == '.' && (!later || *r < *later)) {
      later = r;
    }
  }
  if (!later) return;
  throw ConfigError(fmt::format("{}.{}.et", prefix, missing), "",
                    fmt::format("no such file, but {}.{}.et exists: the ranks of a prefix must be "
                                "0..N-1 without a gap; add rank {}'s file, or move the files past "
                                "the gap away",
                                prefix, *later, missing));
}

// Refuses rank-numbered files given one by one whose ranks are not 0..N-1 (e.g. 0, 1, 3).
void refuse_numbered_gap(const std::map<int, std::filesystem::path>& by_rank) {
  int expected = 0;
  for (const auto& [rank, path] : by_rank) {
    if (rank != expected) {
      throw ConfigError(path.string(), "",
                        fmt::format("rank {}'s file is missing before this rank {} among the "
                                    "numbered files given; give the files of ranks 0..N-1",
                                    expected, rank));
    }
    ++expected;
  }
}

// A custom collective implementation imported as the one collective it implements.
ChakraImport import_custom(const ChakraFile& f, const ChakraCustomCollective& c,
                           const ChakraImportOptions& options, ChakraImport out) {
  Op op;
  op.kind = c.kind;
  op.id = fmt::format("custom.{}", to_string(c.kind));
  op.bytes = c.bytes;
  op.dtype = options.comm_dtype;
  op.stream = kCommStream;
  op.name = fmt::format("custom collective '{}' ({} nodes)", c.algorithm, f.size());
  ChakraSummary& s = out.summary;
  s.version = f.metadata.version();
  s.custom_collective = fmt::format(
      "the file implements one {} of {} bytes in send/recv steps (ASTRA-sim custom collective "
      "'{}'): imported as that collective, run by t3sim's collectives library; its {} nodes are "
      "not replayed one by one",
      to_string(c.kind), c.bytes, c.algorithm, f.size());
  s.add(ChakraCategory::kCollective, 0);
  out.trace.metadata.source = "chakra";
  out.trace.metadata.tp = s.ranks;
  out.trace.metadata.description = fmt::format("Chakra ET custom collective '{}', {} ranks ({})",
                                               c.algorithm, s.ranks, s.imported_file);
  out.trace.ops.push_back(std::move(op));
  check_trace(out.trace, s.imported_file);
  return out;
}

}  // namespace

bool chakra_import_available() { return true; }

std::vector<std::filesystem::path> chakra_rank_files(const std::vector<std::string>& args) {
  std::vector<std::filesystem::path> files;
  for (const std::string& arg : args) {
    std::error_code ec;
    if (std::filesystem::exists(arg, ec)) {
      files.emplace_back(arg);
      continue;
    }
    const std::size_t before = files.size();
    for (int r = 0; r < kMaxRanks; ++r) {
      const std::filesystem::path path = fmt::format("{}.{}.et", arg, r);
      if (!std::filesystem::exists(path, ec)) {
        refuse_prefix_gap(arg, r);
        break;
      }
      files.push_back(path);
    }
    if (files.size() == before) {
      throw ConfigError(arg, "",
                        fmt::format("no such file, nor {}.0.et; give the rank files or their "
                                    "common prefix",
                                    arg));
    }
  }
  if (files.size() > static_cast<std::size_t>(kMaxRanks)) {
    throw ConfigError(
        files.front().string(), "",
        fmt::format("{} rank files, over the {} t3sim reads", files.size(), kMaxRanks));
  }
  std::map<int, std::filesystem::path> by_rank;
  for (const auto& f : files) {
    const std::optional<int> r = rank_of(f);
    if (!r || !by_rank.emplace(*r, f).second) return files;  // unnumbered or repeated: as given
  }
  if (by_rank.size() > 1) refuse_numbered_gap(by_rank);
  std::vector<std::filesystem::path> sorted;
  for (auto& [rank, path] : by_rank) sorted.push_back(std::move(path));
  return sorted;
}

ChakraImport import_chakra(const std::vector<std::filesystem::path>& rank_files,
                           const ChakraImportOptions& options) {
  if (rank_files.empty()) throw UsageError("import-chakra: no rank files given");
  const int ranks = static_cast<int>(rank_files.size());
  const int group = options.group.value_or(ranks);
  if (group < ranks || group > kMaxRanks) {
    throw UsageError(fmt::format("--ranks: {} is fewer than the {} rank files given, or over {}",
                                 group, ranks, kMaxRanks));
  }
  const int chosen = options.rank.value_or(0);
  if (chosen < 0 || chosen >= ranks) {
    throw UsageError(fmt::format("--rank: {} is not one of the {} ranks given (0..{})", chosen,
                                 ranks, ranks - 1));
  }
  ChakraImport out;
  ChakraSummary& s = out.summary;
  s.ranks = group;
  s.files = ranks;
  s.imported_rank = chosen;
  s.imported_file = rank_files[chosen].string();
  const std::string bytes = read_chakra_bytes(rank_files[chosen]);
  Dropped dropped{options.strict, 0, {}};
  Program program;
  {  // the parsed nodes (about as large as the ops) are freed once converted
    const ChakraFile parsed = parse_chakra_records(bytes, s.imported_file);
    if (const auto custom = chakra_custom_collective(parsed)) {
      return import_custom(parsed, *custom, options, std::move(out));
    }
    const Tally counted{options, s};
    program = convert_program(parsed, options.comm_dtype, {chosen, group}, dropped, &counted);
  }
  s.version = program.version;
  s.dropped_deps = dropped.count;
  s.first_dropped_dep = dropped.first;
  for (int r = 0; r < ranks && options.compare_ranks; ++r) {
    if (r == chosen) continue;
    const std::string other = read_chakra_bytes(rank_files[r]);
    if (other == bytes) {
      ++s.identical_files;
      continue;
    }
    const std::string file = rank_files[r].string();
    Dropped other_dropped{options.strict, 0, {}};  // counted for the imported rank only
    const std::string difference =
        program_difference(program, convert_program(parse_chakra_records(other, file),
                                                    options.comm_dtype, {r, group}, other_dropped));
    if (difference.empty() || !s.symmetric) continue;
    s.symmetric = false;
    s.difference = fmt::format("rank {}: {}", r, difference);
    if (!options.rank) {
      throw ConfigError(file, "",
                        fmt::format("rank {}'s program differs from rank {}'s ({}); a t3sim trace "
                                    "runs one program on every rank: pass --rank R to import one "
                                    "rank's program",
                                    r, chosen, difference));
    }
  }
  out.trace.metadata.source = "chakra";
  out.trace.metadata.tp = group;
  out.trace.metadata.description =
      fmt::format("Chakra ET {}, rank {} of {} ({})", s.version, chosen, group, s.imported_file);
  if (!options.compare_ranks) out.trace.metadata.rank = chosen;  // one rank's own program
  out.trace.ops = std::move(program.ops);
  check_trace(out.trace, s.imported_file);
  return out;
}

}  // namespace t3sim::workload
