// `t3sim reproduce [t3] [--out DIR] [--experiment FILE] [--jobs N] [--ablation]`: the main job.
// Runs the reproduction through the studies library, shows progress on a terminal, then draws the
// figures with tools/plot_t3.py in a child process (cli/child_process.h): its failure or a signal
// is an error (exit 2), and it never outlives t3sim.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/child_process.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "sim/errors.h"
#include "tools/studies/parallel.h"
#include "tools/studies/reproduction.h"

namespace t3sim::cli {
namespace {

// tools/plot_t3.py's exit status when matplotlib (or numpy) is missing: a note, not a failure.
constexpr int kNoMatplotlib = 3;

// Draws the figures from the written tables; returns the seconds spent. A missing python3 or
// matplotlib is a note (the tables are complete); a failing or killed script (a full disk,
// Ctrl-C) is an error naming the folder, so the run does not end with exit 0.
double plot(const Env& env, const std::filesystem::path& dir) {
  const auto t0 = std::chrono::steady_clock::now();
  const ChildExit e = run_child(
      {"/usr/bin/python3", (env.source_dir / "tools" / "plot_t3.py").string(), dir.string()});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (e.ok()) return s;
  if (e.exited && (e.code == kNoMatplotlib || e.code == 127)) {
    std::fprintf(stderr,
                 "t3sim reproduce: note: figures not drawn (needs /usr/bin/python3 with "
                 "matplotlib; run tools/bootstrap.sh)\n");
    return s;
  }
  const std::string how = e.exited ? "exited with status " + std::to_string(e.code)
                                   : "was killed by signal " + std::to_string(e.signal) + " (" +
                                         strsignal(e.signal) + ")";
  throw ConfigError(dir.string(), "",
                    "figures not drawn: tools/plot_t3.py " + how +
                        " (its messages are above: a full disk?); the tables are written, draw "
                        "the figures again with /usr/bin/python3 tools/plot_t3.py " +
                        dir.string());
}

}  // namespace

int cmd_reproduce(const Args& args, const Env& env) {
  po::options_description desc("t3sim reproduce options");
  std::string which = "t3", out, experiment;
  unsigned jobs_n = 0;
  bool ablation = false, quiet = false;
  desc.add_options()("which", po::value(&which)->default_value("t3"), "reproduction: t3")(
      "out", po::value(&out), "output directory (default results/<experiment name>/)")(
      "experiment", po::value(&experiment),
      "experiment file (default configs/experiments/t3-paper.json)")(
      "jobs,j", integer(&jobs_n, 0u, studies::kMaxThreads)->default_value(0),
      "worker threads, 1..256 (0 = all cores)")(
      "ablation", po::bool_switch(&ablation),
      "also re-run the Fig. 16 points with each mechanism switched off (the experiment's "
      "\"ablation\" variants) and add the table to report.md")(
      "quiet,q", po::bool_switch(&quiet), "no progress line (it is shown only on a terminal)");
  po::positional_options_description pos;
  pos.add("which", 1);
  po::variables_map vm;
  if (!parse_options(args, desc, vm, &pos, "t3sim reproduce [t3] [--out DIR]")) return 0;
  if (which != "t3") throw UsageError("unknown reproduction '" + which + "' (available: t3)");
  if (!out.empty()) {
    const std::filesystem::path exp = experiment.empty()
                                          ? env.configs_dir / "experiments" / "t3-paper.json"
                                          : std::filesystem::path(experiment);
    refuse_input_output("--out", out, {{exp, "the experiment file"}});
    check_output_dir("--out", out);
  }
  studies::ReproductionRequest req{experiment, out, jobs_n, nullptr, ablation};
  ProgressLine line("reproduce", "runs", progress_shown(env.stderr_is_tty, quiet));
  req.progress = [&line](size_t done, size_t total) { line.update(done, total); };
  const studies::Reproduction rep = studies::run_reproduction(env, req);
  const double plot_s = plot(env, rep.dir);
  std::printf(
      "reproduce: %zu points, %zu runs on %u threads in %.2f s wall (%.2f s with the figures); "
      "%llu events, %.1f M events/s -> %s\n",
      rep.points.size(), rep.runs, rep.threads, rep.wall_s, rep.wall_s + plot_s,
      static_cast<unsigned long long>(rep.events),
      static_cast<double>(rep.events) / rep.wall_s / 1e6, rep.dir.c_str());
  return 0;
}

}  // namespace t3sim::cli
