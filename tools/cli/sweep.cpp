// `t3sim sweep SPEC --out FILE [--jobs N] [--resume | --force]`: runs every point of a sweep spec
// on N threads (each point its own Simulator), appending rows as points finish; with MPI (mpirun
// -np K) points are split across ranks and rank 0 writes. The final file is ordered by point index
// and byte-identical for any N and K. An existing FILE is continued (--resume), replaced (--force)
// or refused before any work. Progress on stderr (cli/progress.h) on a terminal only; axes that
// change no result are reported (studies/sweep_insight.h).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>

#include "cli/common.h"
#include "cli/progress.h"
#include "sim/errors.h"
#include "studies/parallel.h"
#include "studies/sweep_insight.h"
#include "studies/sweep_runner.h"

namespace t3sim::cli {
namespace {

using namespace studies;  // NOLINT: the sweep engine's names

// Warns on stderr about axes that changed no result (studies/sweep_insight.h).
void warn_inert_axes(const Env& env, const SweepSpec& spec, const std::string& out) {
  std::ifstream in(out, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const SweepResults results = read_sweep_results(text, spec, is_jsonl(out));
  for (const auto& w : inert_axis_warnings(env, spec, results)) {
    std::fprintf(stderr, "t3sim sweep: %s\n", w.c_str());
  }
}

// Before any work: an existing results file is neither continued nor replaced unless asked.
void refuse_existing(const std::string& out, bool resume, bool force) {
  if (resume && force) {
    throw UsageError("--resume keeps the rows of --out and --force replaces them: give one");
  }
  std::error_code ec;
  if (resume || force || !std::filesystem::is_regular_file(out, ec)) return;
  throw ConfigError("--out", "",
                    "'" + out +
                        "' exists; rerun with --resume to continue that sweep, --force to "
                        "replace it, or name another file");
}

void report_stale(size_t stale) {
  if (stale == 0) return;
  std::fprintf(stderr,
               "sweep: %zu row(s) of --out were written for another spec (other axis values, or "
               "another base, system or model: see --out's .spec fingerprint); those points were "
               "run again\n",
               stale);
}

}  // namespace

int cmd_sweep(const Args& args, const Env& env) {
  po::options_description desc("t3sim sweep options");
  std::string spec_path, out;
  unsigned jobs = 0;
  desc.add_options()("spec", po::value(&spec_path)->required(), "sweep spec (kind: sweep)")(
      "out", po::value(&out)->required(), "results file (.csv, or .jsonl for JSON Lines)")(
      "jobs,j", integer(&jobs, 0u, studies::kMaxThreads)->default_value(0),
      "threads per process, 1..256 (0 = all cores)")(
      "resume", po::bool_switch(), "keep the rows already in --out and run the other points")(
      "force", po::bool_switch(), "replace an existing --out")(
      "quiet,q", po::bool_switch(), "no progress line (it is shown only on a terminal)");
  po::positional_options_description pos;
  pos.add("spec", 1);
  po::variables_map vm;
  if (!parse_options(args, desc, vm, &pos,
                     "t3sim sweep SPEC --out FILE [--jobs N] [--resume | --force]")) {
    return 0;
  }
  // Before refuse_existing, whose fix (--force) would replace the spec itself.
  refuse_input_output("--out", out, {{spec_path, "the sweep spec"}});
  refuse_existing(out, vm["resume"].as<bool>(), vm["force"].as<bool>());
  MpiSession mpi;
  const ConfigDoc doc = load_config(spec_path, {env.configs_dir});
  const SweepSpec spec = read_sweep(env, doc);
  std::vector<InputFile> inputs;
  add_config_files(inputs, doc, "a file of the sweep spec");
  inputs.push_back({spec.system, "the spec's system"});
  inputs.push_back({env.configs_dir / "systems" / (spec.system + ".json"), "the spec's system"});
  inputs.push_back(model_file(env, spec.model));
  refuse_input_output("--out", out, inputs);
  const unsigned threads = jobs == 0 ? std::max(1u, studies::default_threads() / mpi.size()) : jobs;
  if (mpi.size() > 1) {
    MpiSweepResult r;
    try {
      r = run_sweep_mpi(env, spec, out, vm["resume"].as<bool>(), threads, mpi);
    } catch (const SweepRankError& e) {  // another rank failed; rank 0 removed the output
      std::fprintf(stderr, "t3sim sweep: %s\n", e.what());
      mpi.abort(e.code);
    } catch (const std::exception& e) {
      // The other ranks wait for this one in MPI calls: say why, then end them all.
      const int code = sweep_exit_code(e);
      std::fprintf(stderr, "t3sim sweep: %s%s (rank %u of %u)\n",
                   code == 2 ? "" : "internal error: ", e.what(), mpi.rank(), mpi.size());
      mpi.abort(code);
    }
    if (mpi.rank() != 0) return 0;
    report_stale(r.stale);
    warn_inert_axes(env, spec, out);
    std::printf(
        "sweep %s: %zu points (%zu run now) in %.2f s, %.2f points/s, %u ranks x %u thread(s) -> "
        "%s\n",
        spec.name.c_str(), r.points, r.run_now, r.wall_s,
        r.wall_s > 0 ? static_cast<double>(r.run_now) / r.wall_s : 0.0, mpi.size(), threads,
        out.c_str());
    return 0;
  }
  std::optional<ProgressLine> line;
  size_t done = 0, total = 0, already = 0;
  const auto t0 = std::chrono::steady_clock::now();
  SweepRequest req{out, threads, vm["resume"].as<bool>(), nullptr, nullptr};
  req.on_start = [&](size_t a, size_t t) {
    already = done = a;
    total = t;
    line.emplace("sweep", "points", progress_shown(env.stderr_is_tty, vm["quiet"].as<bool>()), a);
  };
  req.on_point = [&] { line->update(++done, total); };
  const SweepRun run = run_sweep(env, spec, req);
  report_stale(run.stale);
  warn_inert_axes(env, spec, out);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("sweep %s: %zu points (%zu run now) in %.2f s, %.2f points/s, %u thread(s) -> %s\n",
              spec.name.c_str(), spec.points(), done - already, wall,
              static_cast<double>(done - already) / std::max(wall, 1e-9), threads, out.c_str());
  return 0;
}

}  // namespace t3sim::cli
