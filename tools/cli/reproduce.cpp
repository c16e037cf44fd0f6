// `t3sim reproduce [STUDY] [--out DIR] [--experiment FILE] [--jobs N] [--ablation]`: the main job
// and the other studies of configs/experiments/ (STUDY names a file there; `t3` is the paper's,
// t3-paper.json). Runs the study through the studies library and shows progress on a terminal.
// For the paper it then draws the figures with tools/plot_t3.py in a child process
// (cli/child_process.h): its failure or a signal is an error (exit 2), and it never outlives
// t3sim. A systems study writes its SVG figures itself.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/child_process.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "sim/errors.h"
#include "studies/parallel.h"
#include "studies/reproduction.h"

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

// The studies `reproduce` can name: the stems of configs/experiments/*.json, sorted, and `t3`.
std::vector<std::string> studies_available(const Env& env) {
  std::vector<std::string> names{"t3"};
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(env.configs_dir / "experiments", ec)) {
    if (f.path().extension() == ".json") names.push_back(f.path().stem().string());
  }
  std::sort(names.begin() + 1, names.end());
  return names;
}

// The experiment file of a study name (`t3`: the paper's).
std::filesystem::path study_file(const Env& env, const std::string& which) {
  const auto names = studies_available(env);
  if (std::find(names.begin(), names.end(), which) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw UsageError("unknown study '" + which + "' (available: " + list +
                     "; each is a file of configs/experiments/)");
  }
  return env.configs_dir / "experiments" / ((which == "t3" ? "t3-paper" : which) + ".json");
}

}  // namespace

int cmd_reproduce(const Args& args, const Env& env) {
  po::options_description desc("t3sim reproduce options");
  std::string which = "t3", out, experiment;
  unsigned jobs_n = 0;
  bool ablation = false, quiet = false;
  desc.add_options()("which", po::value(&which)->default_value("t3"),
                     "study: t3 (the paper, configs/experiments/t3-paper.json) or the name of "
                     "another file of configs/experiments/, e.g. t3-today")(
      "out", po::value(&out), "output directory (default results/<experiment name>/)")(
      "experiment", po::value(&experiment),
      "experiment file (default: the study's file of configs/experiments/)")(
      "jobs,j", integer(&jobs_n, 0u, studies::kMaxThreads)->default_value(0),
      "worker threads, 1..256 (0 = all cores)")(
      "ablation", po::bool_switch(&ablation),
      "also re-run the Fig. 16 points with each mechanism switched off (the experiment's "
      "\"ablation\" variants) and add the table to report.md")(
      "quiet,q", po::bool_switch(&quiet), "no progress line (it is shown only on a terminal)");
  po::positional_options_description pos;
  pos.add("which", 1);
  po::variables_map vm;
  if (!parse_options(args, desc, vm, &pos, "t3sim reproduce [t3|STUDY] [--out DIR]")) return 0;
  const std::filesystem::path chosen = study_file(env, which);
  if (experiment.empty()) experiment = chosen.string();
  studies::ReproductionRequest req{experiment, out, jobs_n, nullptr, ablation};
  studies::check_request(env, req);  // bad input fails before --out is created
  if (!out.empty()) {
    refuse_input_output("--out", out, {{experiment, "the experiment file"}});
    check_output_dir("--out", out);
  }
  ProgressLine line("reproduce", "runs", progress_shown(env.stderr_is_tty, quiet));
  req.progress = [&line](size_t done, size_t total) { line.update(done, total); };
  const studies::Reproduction rep = studies::run_reproduction(env, req);
  const double plot_s = rep.exp.kind == studies::StudyKind::kPaper ? plot(env, rep.dir) : 0.0;
  std::printf(
      "reproduce: %zu points, %zu runs on %u threads in %.2f s wall (%.2f s with the figures); "
      "%llu events, %.1f M events/s -> %s\n",
      rep.points.size(), rep.runs, rep.threads, rep.wall_s, rep.wall_s + plot_s,
      static_cast<unsigned long long>(rep.events),
      static_cast<double>(rep.events) / rep.wall_s / 1e6, rep.dir.c_str());
  return 0;
}

}  // namespace t3sim::cli
