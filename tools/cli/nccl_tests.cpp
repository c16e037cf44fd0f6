// `t3sim nccl-tests <test>`: the nccl-tests programs (all_reduce_perf, reduce_scatter_perf,
// all_gather_perf, broadcast_perf, reduce_perf, alltoall_perf, sendrecv_perf) on a simulated
// system, printed in nccl-tests' layout so its parsers read it: 13 columns per size (size, count,
// type, redop, root, then time/algbw/busbw/#wrong out-of-place and in-place; GB/s = 1e9 B/s, busbw
// per hardware.md §5.5) and both footers. Options keep nccl-tests' meaning where a deterministic
// simulator has one (nccl_tests_options.cpp). --compare CSV adds, as comment lines, the measured
// busbw and the error per size, and the median absolute busbw error over sizes >= 1 MiB.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/common.h"
#include "cli/nccl_tests_options.h"
#include "models/collectives/collective.h"
#include "models/collectives/kinds.h"
#include "models/collectives/schedule_limits.h"
#include "models/system/system.h"
#include "sim/atomic_file.h"
#include "sim/errors.h"
#include "studies/probes.h"
#include "studies/validation/validation_sets.h"

namespace t3sim::cli {
namespace {

// The measured busbw per size of a --compare CSV (the validation sets' collective reader).
std::map<uint64_t, double> read_measured_busbw(const std::filesystem::path& path) {
  std::map<uint64_t, double> out;
  for (const auto& p : validation::load_collective_csv(path)) {
    out[p.size_bytes] = p.busbw_gbps;
  }
  return out;
}

void print_header(const NcclTestsOptions& o) {
  std::printf(
      "# nThread %d nGpus %d minBytes %llu maxBytes %llu step: %s warmup iters: %d iters: %d "
      "agg iters: 1 validation: %d graph: 0\n#\n",
      o.threads, o.gpus / o.threads, static_cast<unsigned long long>(o.lo),
      static_cast<unsigned long long>(o.hi), o.step_text().c_str(), o.warmup, o.iters, o.check);
  std::printf(
      "# t3sim %s on %s: %d simulated GPUs. The simulation is deterministic: every iteration takes "
      "the same time,\n# so one is simulated per size; data live in one buffer per GPU, so the "
      "out-of-place and in-place\n# columns move the same bytes and show the same run. #wrong: "
      "bytes the schedule failed to deliver.\n#\n",
      std::string(o.kind->test).c_str(), o.system.c_str(), o.gpus);
  std::printf("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place\n",
              "", "", "", "", "");
  std::printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n", "size",
              "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
              "busbw", "#wrong");
  std::printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)",
              "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
              "");
}

// nccl-tests' time column: 2 decimals below 100 us, 1 below 10 ms, none above.
std::string time_text(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f", us);
  return buf;
}

// Past this many GPUs, an `--algo auto` run whose choice cannot fold runs the foldable
// hierarchical ring instead (a full run of thousands of GPUs takes minutes and gigabytes).
constexpr int kAutoFoldGpus = 256;

// Thrown from the full-run warning to switch to the foldable plan.
struct UseFoldable {
  std::string why;
};

}  // namespace

int cmd_nccl_tests(const Args& args, const Env& env) {
  bool help = false;
  NcclTestsOptions o = parse_nccl_tests(args, help);
  if (help) return 0;
  TimelineOptions trace_options;
  const std::string trace_path = o.trace.resolve(trace_options);
  std::vector<std::string> sets{p2p_direct_override(o)};  // then the user's --set
  sets.insert(sets.end(), o.sets.begin(), o.sets.end());
  o.sets = sets;
  ConfigDoc doc = load_system(env, o.system, o.sets);
  resolve_nccl_tests_gpus(o, system::system_gpus(doc));
  for (int g = 0; g < o.gpus; ++g) o.base.group.push_back(g);
  const std::filesystem::path compare =
      o.compare.empty() ? std::filesystem::path() : validation::find_input(env, o.compare);
  std::vector<InputFile> inputs;
  add_config_files(inputs, doc, "a file of --system");
  if (!compare.empty()) inputs.push_back({compare, "the --compare CSV"});
  refuse_input_output(o.trace.flag(), trace_path, inputs);
  const uint64_t ranks = static_cast<uint64_t>(o.gpus);
  const uint64_t unit = o.type->bytes * (o.kind->split_by_rank ? ranks : 1);
  const std::vector<uint64_t> rows = o.rows(unit);  // before any output: a bad range is one line
  const std::map<uint64_t, double> measured =
      compare.empty() ? std::map<uint64_t, double>{} : read_measured_busbw(compare);
  const double bus = collectives::busbw_factor(o.kind->kind, o.gpus);  // hardware.md §5.5
  const std::string wrong = o.check ? "0" : "N/A";
  std::vector<double> errors;
  double bus_sum = 0;
  for (const uint64_t bytes : rows) {
    const auto t0 = std::chrono::steady_clock::now();
    collectives::CollectiveSpec spec = o.base;
    spec.bytes = bytes;
    std::optional<Timeline> tl;  // the largest size only
    if (!trace_path.empty() && bytes == rows.back()) tl.emplace(trace_options);
    // Past one leaf group a full run takes minutes to hours: say why it is not folded, and
    // what would fold, first.
    const auto warn = [&](const std::string& why) {
      if (o.base.algo == collectives::Algo::kAuto && o.gpus > kAutoFoldGpus &&
          !studies::fold_options(doc, false).empty()) {
        throw UseFoldable{why};
      }
      note_full_run("nccl-tests", doc, o.gpus, why,
                    o.base.algo == collectives::Algo::kHierarchical);
    };
    studies::CollectiveProbe p;
    try {
      try {
        p = studies::probe_collective(doc, spec, tl ? &*tl : nullptr, warn);
      } catch (const UseFoldable& u) {
        // The same collective as NCCL's hierarchical ring on a placement that folds; said once.
        const std::string fix = studies::fold_options(doc, false);
        std::vector<std::string> sets = o.sets;
        if (fix.find("placement=striped") != std::string::npos) {
          sets.push_back("fabric.placement=striped");
        }
        doc = load_system(env, o.system, sets);
        o.base.algo = collectives::Algo::kHierarchical;
        spec.algo = o.base.algo;
        std::fprintf(stderr,
                     "t3sim nccl-tests: --algo auto on %d GPUs: its choice cannot fold (%s); "
                     "simulating the hierarchical ring (`%s`), which folds; name an --algo to "
                     "simulate that instead\n",
                     o.gpus, u.why.c_str(), fix.c_str());
        p = studies::probe_collective(doc, spec, tl ? &*tl : nullptr, warn);
      }
    } catch (const collectives::ScheduleTooLarge& e) {
      throw UsageError(std::string(bytes == rows.front() ? "-b: " : "-e: ") + e.need() +
                       "; lower -e (and -b), or the GPUs with -g");
    }
    if (bytes == rows.front()) print_header(o);  // after a first row that runs: no bare header
    if (tl) {
      write_file_atomic(trace_path, tl->json());
      note_trace_dropped("nccl-tests", trace_path, tl->dropped(), trace_options.max_events);
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double algbw = static_cast<double>(bytes) / (p.time_us * 1e3);
    bus_sum += algbw * bus;
    std::printf("%12llu  %12llu  %8s  %6s  %6d", static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(bytes / unit), o.type->name,
                o.kind->reduces ? o.redop.c_str() : "none", o.kind->rooted ? o.base.root : -1);
    for (int col = 0; col < 2; ++col) {
      std::printf("  %7s  %6.2f  %6.2f  %5s", time_text(p.time_us).c_str(), algbw, algbw * bus,
                  wrong.c_str());
    }
    std::printf("\n");
    if (auto it = measured.find(bytes); it != measured.end()) {
      const double err = 100.0 * (algbw * bus - it->second) / it->second;
      std::printf("#   measured busbw %.2f GB/s, error %+.1f %%\n", it->second, err);
      if (bytes >= (uint64_t{1} << 20)) errors.push_back(std::fabs(err));
    }
    if (o.verbose) {
      std::printf("#   %s, wall %.2f s, %llu events\n", p.how.c_str(), wall,
                  static_cast<unsigned long long>(p.events));
    }
    std::fflush(stdout);
  }
  std::printf("# Out of bounds values : 0 OK\n");
  std::printf("# Avg bus bandwidth    : %g \n#\n", bus_sum / static_cast<double>(rows.size()));
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
