// `t3sim nccl-tests <all_reduce_perf|reduce_scatter_perf|all_gather_perf>`: the nccl-tests sweep on
// a simulated system. Each size runs in a fresh Simulator + System; rows follow nccl-tests' layout
// (size, count, type, redop, root, time us, algbw and busbw in GB/s = 1e9 B/s; busbw per
// hardware.md §5.5). --compare CSV (size_bytes,time_us,algbw_gbps,busbw_gbps) adds the measured
// busbw and the error per size, and the median absolute busbw error over sizes >= 1 MiB.
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/common.h"
#include "cli/trace_options.h"
#include "models/collectives/collective.h"
#include "models/system/system.h"
#include "sim/atomic_file.h"
#include "sim/errors.h"
#include "tools/studies/probes.h"
#include "validation/lib/validation_sets.h"

namespace t3sim::cli {
namespace {

using collectives::Kind;

struct TestOp {
  const char* name;
  Kind kind;
  const char* redop;
};
constexpr TestOp kOps[] = {{"all_reduce_perf", Kind::kAllReduce, "sum"},
                           {"reduce_scatter_perf", Kind::kReduceScatter, "sum"},
                           {"all_gather_perf", Kind::kAllGather, "none"}};

struct Dtype {
  const char* name;
  uint32_t bytes;
};
constexpr Dtype kTypes[] = {{"float", 4}, {"half", 2}, {"bfloat16", 2}, {"double", 8}, {"int8", 1}};

// nccl-tests sizes: a number with an optional K/M/G/T suffix (binary multiples).
uint64_t parse_size(const std::string& s, const char* opt) {
  size_t used = 0;
  uint64_t v = 0;
  try {
    v = std::stoull(s, &used);
  } catch (const std::exception&) {
    throw UsageError(std::string(opt) + ": '" + s + "' is not a size (e.g. 32K, 1M, 1G)");
  }
  const std::string suffix = s.substr(used);
  const std::string units = "KMGT";
  if (suffix.size() > 1) throw UsageError(std::string(opt) + ": bad size suffix '" + suffix + "'");
  if (suffix.size() == 1) {
    const size_t k = units.find(static_cast<char>(std::toupper(suffix[0])));
    if (k == std::string::npos)
      throw UsageError(std::string(opt) + ": bad size suffix '" + suffix + "'");
    v <<= 10 * (k + 1);
  }
  return v;
}

// The measured busbw per size of a --compare CSV (the validation sets' collective reader).
std::map<uint64_t, double> read_measured_busbw(const std::string& path, const Env& env) {
  std::map<uint64_t, double> out;
  for (const auto& p : validation::load_collective_csv(validation::find_input(env, path))) {
    out[p.size_bytes] = p.busbw_gbps;
  }
  return out;
}

struct Options {
  const TestOp* op = nullptr;
  const Dtype* type = nullptr;
  std::string system;
  uint64_t lo = 0;
  uint64_t hi = 0;
  double factor = 2;
  std::string compare;
  bool verbose = false;
  std::vector<std::string> sets;
  collectives::CollectiveSpec base;  // everything but the size
  int gpus = 0;                      // group size
  TraceCli trace;                    // --trace-out: a timeline of the largest size
};

Options parse(const Args& args, bool& help) {
  po::options_description desc("t3sim nccl-tests options");
  std::string test, algo, exec, proto, minb, maxb, dtype;
  Options o;
  uint32_t channels = 0;
  desc.add_options()("test", po::value(&test)->required(),
                     "all_reduce_perf | reduce_scatter_perf | all_gather_perf")(
      "system", po::value(&o.system)->required(), "system name or path")(
      "gpus", integer(&o.gpus, 0, 4096)->default_value(0), "use the first N GPUs (0 = all)")(
      "algo", po::value(&algo)->default_value("auto"), "auto | ring | direct | hierarchical")(
      "executor", po::value(&exec), "cu | dma (default: the system's collectives.executor)")(
      "proto", po::value(&proto)->default_value("auto"), "auto | simple | ll128 | ll")(
      "channels", integer(&channels, 0u, 64u)->default_value(0),
      "channels, 1..64 (0 = the system's)")("set", po::value(&o.sets)->composing(),
                                            "override: path=value")(
      "minbytes,b", po::value(&minb)->default_value("32M"), "smallest size")(
      "maxbytes,e", po::value(&maxb)->default_value("32M"), "largest size")(
      "stepfactor,f", po::value(&o.factor)->default_value(2), "size multiplier")(
      "datatype,d", po::value(&dtype)->default_value("float"),
      "float | half | bfloat16 | double | int8")(
      "compare", po::value(&o.compare), "measured CSV: size_bytes,time_us,algbw_gbps,busbw_gbps")(
      "verbose,v", po::bool_switch(&o.verbose), "a comment line per size: choices, wall time");
  o.trace.add(desc);
  po::positional_options_description pos;
  pos.add("test", 1);
  po::variables_map vm;
  help = !parse_options(args, desc, vm, &pos,
                        "t3sim nccl-tests all_reduce_perf --system S [-b 1M -e 1G -f 2] "
                        "[--compare CSV]");
  if (help) return o;
  for (const TestOp& t : kOps) o.op = test == t.name ? &t : o.op;
  if (o.op == nullptr) {
    throw UsageError("unknown test '" + test +
                     "' (all_reduce_perf, reduce_scatter_perf, all_gather_perf)");
  }
  for (const Dtype& t : kTypes) o.type = dtype == t.name ? &t : o.type;
  if (o.type == nullptr) throw UsageError("-d: unknown datatype '" + dtype + "'");
  o.lo = parse_size(minb, "-b");
  o.hi = parse_size(maxb, "-e");
  if (o.lo == 0 || o.hi < o.lo || !(o.factor > 1.0 && o.factor <= 1e6)) {
    throw UsageError("need 0 < -b <= -e and 1 < -f <= 1e6");
  }
  o.base.kind = o.op->kind;
  o.base.algo = collectives::parse_algo(algo, "--algo");
  o.base.proto = collectives::parse_protocol(proto, "--proto");
  if (!exec.empty()) o.base.exec = collectives::parse_executor(exec, "--executor");
  o.base.channels = channels;
  o.base.elem_bytes = o.type->bytes;
  return o;
}

void print_header(const Options& o, bool compare) {
  std::printf(
      "# t3sim nccl-tests %s: system %s, %d GPUs, minBytes %llu maxBytes %llu step: "
      "%g(factor)\n",
      o.op->name, o.system.c_str(), o.gpus, static_cast<unsigned long long>(o.lo),
      static_cast<unsigned long long>(o.hi), o.factor);
  std::printf("# simulated: one in-place run per size (out-of-place columns); GB/s = 1e9 B/s\n#\n");
  std::printf("#%11s %13s %9s %7s %7s %10s %8s %8s%s\n", "size", "count", "type", "redop", "root",
              "time", "algbw", "busbw", compare ? "  meas_busbw   err%" : "");
  std::printf("#%11s %13s %9s %7s %7s %10s %8s %8s%s\n", "(B)", "(elements)", "", "", "", "(us)",
              "(GB/s)", "(GB/s)", compare ? "      (GB/s)" : "");
}

}  // namespace

int cmd_nccl_tests(const Args& args, const Env& env) {
  bool help = false;
  Options o = parse(args, help);
  if (help) return 0;
  TimelineOptions trace_options;
  const std::string trace_path = o.trace.resolve(trace_options);
  const ConfigDoc doc = load_system(env, o.system, o.sets);
  const int total = system::system_gpus(doc);
  o.gpus = o.gpus == 0 ? total : o.gpus;
  if (o.gpus < 1 || o.gpus > total)
    throw UsageError("--gpus must be in 1.." + std::to_string(total));
  for (int g = 0; g < o.gpus; ++g) o.base.group.push_back(g);
  const std::map<uint64_t, double> measured =
      o.compare.empty() ? std::map<uint64_t, double>{} : read_measured_busbw(o.compare, env);
  const bool ar = o.op->kind == Kind::kAllReduce;
  const uint64_t ranks = static_cast<uint64_t>(o.gpus);
  const uint64_t unit = o.type->bytes * (ar ? 1 : ranks);
  const double bus = studies::busbw_factor(o.op->kind, o.gpus);  // hardware.md §5.5
  print_header(o, !measured.empty());
  std::vector<double> errors;
  double bus_sum = 0;
  int rows = 0;
  for (double s = static_cast<double>(o.lo); s <= static_cast<double>(o.hi) * (1 + 1e-9);
       s *= o.factor) {
    const uint64_t bytes = static_cast<uint64_t>(std::llround(s)) / unit * unit;
    if (bytes == 0) continue;
    const auto t0 = std::chrono::steady_clock::now();
    collectives::CollectiveSpec spec = o.base;
    spec.bytes = bytes;
    const bool last = s * o.factor > static_cast<double>(o.hi) * (1 + 1e-9);
    std::optional<Timeline> tl;
    if (last && !trace_path.empty()) tl.emplace(trace_options);
    const studies::CollectiveProbe p = studies::probe_collective(doc, spec, tl ? &*tl : nullptr);
    if (tl) write_file_atomic(trace_path, tl->json());
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double algbw = static_cast<double>(bytes) / (p.time_us * 1e3);
    bus_sum += algbw * bus;
    ++rows;
    std::printf("%12llu %13llu %9s %7s %7d %10.1f %8.2f %8.2f",
                static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(bytes / o.type->bytes / (ar ? 1 : ranks)),
                o.type->name, o.op->redop, -1, p.time_us, algbw, algbw * bus);
    if (auto it = measured.find(bytes); it != measured.end()) {
      const double err = 100.0 * (algbw * bus - it->second) / it->second;
      std::printf("  %10.2f %+6.1f", it->second, err);
      if (bytes >= (uint64_t{1} << 20)) errors.push_back(std::fabs(err));
    }
    std::printf("\n");
    if (o.verbose) std::printf("#   %s, wall %.2f s\n", p.how.c_str(), wall);
    std::fflush(stdout);
  }
  std::printf("# Avg bus bandwidth    : %g\n", rows > 0 ? bus_sum / rows : 0.0);
  if (!measured.empty()) {
    if (errors.empty()) {
      std::printf("# Median |busbw error| (sizes >= 1 MiB): n/a (no measured size in range)\n");
    } else {
      std::printf("# Median |busbw error| (sizes >= 1 MiB): %.1f %% over %zu sizes\n",
                  validation::median(errors), errors.size());
    }
  }
  return 0;
}

}  // namespace t3sim::cli
