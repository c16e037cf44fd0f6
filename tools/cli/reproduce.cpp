// `t3sim reproduce [t3] [--out DIR] [--experiment FILE] [--jobs N]`: the main job.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "cli/common.h"
#include "cli/parallel.h"
#include "cli/reproduce.h"
#include "models/system/system.h"
#include "sim/errors.h"

namespace t3sim::cli {
namespace {

struct Job {
  size_t point = 0;
  enum class Kind { kMode, kPiece, kCuSplit, kTimeline } kind = Kind::kMode;
  system::Mode mode = system::Mode::kSequential;
  system::Piece piece = system::Piece::kGemm;
  uint32_t cus = 0;
  system::RunOptions opts;
};

void add_points(const Env& env, const Experiment& e, const PointSet& ps, bool large,
                std::vector<PointResult>& out) {
  for (const auto& model : ps.models) {
    for (int tp : ps.tp) {
      for (const auto& sl : ps.sublayers) {
        PointResult p;
        p.model = model;
        p.tp = tp;
        p.sublayer = sl;
        p.large = large;
        const SublayerChoice c = choose_sublayer(env, model, tp, sl, 0);
        p.tokens = c.tokens;
        p.spec = c.spec;
        p.spec.seed = e.seed;
        out.push_back(std::move(p));
      }
    }
  }
}

std::vector<Job> plan_jobs(const Experiment& e, const std::vector<PointResult>& points,
                           const std::filesystem::path& dir) {
  std::vector<Job> jobs;
  for (size_t i = 0; i < points.size(); ++i) {
    const PointResult& p = points[i];
    const PointSet& ps = p.large ? e.large : e.fig16;
    const bool fig17 = !p.large && p.model == e.fig17_model && p.tp == e.fig17_tp &&
                       p.sublayer == e.fig17_sublayer;
    for (system::Mode m : ps.modes) {
      // Composed from isolated pieces: sequential (GEMM + RS + AG) and the ideal modes.
      if (m == system::Mode::kSequential || m == system::Mode::kIdeal ||
          m == system::Mode::kIdealNmc) {
        continue;
      }
      Job j{i, Job::Kind::kMode, m, system::Piece::kGemm, 0, {}};
      if (fig17 && m == system::Mode::kT3Mca) {
        j.opts.trace_path =
            (dir / ("trace_" + p.model + "_" + p.sublayer + "_t3-mca.json")).string();
      }
      jobs.push_back(j);
    }
    if (fig17) {  // full runs that keep GPU 0's HBM traffic timeline
      for (system::Mode m : {system::Mode::kSequential, system::Mode::kT3, system::Mode::kT3Mca}) {
        Job j{i, Job::Kind::kTimeline, m, system::Piece::kGemm, 0, {}};
        j.opts.timeline = true;
        jobs.push_back(j);
      }
    }
    std::vector<system::Piece> pieces{system::Piece::kGemm, system::Piece::kRsCu,
                                      system::Piece::kAgCu};
    for (system::Mode m : ps.modes) {
      if (m == system::Mode::kIdealNmc) pieces.push_back(system::Piece::kRsNmc);
    }
    if (!p.large && !e.ar_cus.empty()) pieces.push_back(system::Piece::kArCu);
    for (auto pc : pieces)
      jobs.push_back(Job{i, Job::Kind::kPiece, system::Mode::kSequential, pc, 0, {}});
    if (!p.large) {
      for (uint32_t c : e.ar_cus) {
        jobs.push_back(
            Job{i, Job::Kind::kCuSplit, system::Mode::kCuSplit, system::Piece::kGemm, c, {}});
      }
    }
  }
  return jobs;
}

bool fused(system::Mode m) {
  return m == system::Mode::kT3 || m == system::Mode::kT3Mca || m == system::Mode::kT3Direct;
}

void progress(bool tty, size_t done, size_t total, double elapsed) {
  if (!tty) return;
  std::fprintf(stderr, "\r[reproduce] %zu/%zu runs, %.1f s", done, total, elapsed);
  if (done == total) std::fprintf(stderr, "\n");
}

}  // namespace

int cmd_reproduce(const Args& args, const Env& env) {
  po::options_description desc("t3sim reproduce options");
  std::string which = "t3", out, experiment;
  unsigned jobs_n = 0;
  desc.add_options()("which", po::value(&which)->default_value("t3"), "reproduction: t3")(
      "out", po::value(&out), "output directory (default results/<experiment name>/)")(
      "experiment", po::value(&experiment),
      "experiment file (default configs/experiments/t3-paper.json)")(
      "jobs,j", po::value(&jobs_n)->default_value(0), "worker threads (0 = all cores)");
  po::positional_options_description pos;
  pos.add("which", 1);
  po::variables_map vm;
  if (!parse_options(args, desc, vm, &pos, "t3sim reproduce [t3] [--out DIR]")) return 0;
  if (which != "t3") throw UsageError("unknown reproduction '" + which + "' (available: t3)");
  if (experiment.empty()) experiment = (env.configs_dir / "experiments" / "t3-paper.json").string();
  const auto t0 = std::chrono::steady_clock::now();
  const ConfigDoc doc = load_config(experiment, {env.configs_dir});
  Reproduction rep;
  rep.exp = read_experiment(env, doc);
  const std::filesystem::path dir =
      out.empty() ? std::filesystem::path("results") / rep.exp.name : std::filesystem::path(out);
  std::filesystem::create_directories(dir);
  add_points(env, rep.exp, rep.exp.fig16, false, rep.points);
  add_points(env, rep.exp, rep.exp.large, true, rep.points);
  std::map<int, ConfigDoc> systems;
  for (const auto& p : rep.points) {
    if (!systems.count(p.tp))
      systems.emplace(p.tp, load_system(env, system_for(rep.exp, p.tp), {}));
  }
  const std::vector<Job> jobs = plan_jobs(rep.exp, rep.points, dir);
  std::vector<system::SublayerResult> results(jobs.size());
  rep.threads = jobs_n == 0 ? default_threads() : jobs_n;
  size_t done = 0;
  run_parallel(
      jobs.size(), rep.threads,
      [&](size_t i) {
        const Job& j = jobs[i];
        const PointResult& p = rep.points[j.point];
        const ConfigDoc& sys = systems.at(p.tp);
        system::SublayerSpec spec = p.spec;
        if (j.kind == Job::Kind::kPiece) {
          results[i] = system::run_piece(sys, spec, j.piece);
        } else {
          spec.ar_cus = j.cus == 0 ? spec.ar_cus : j.cus;
          // The all-gather is not fused: every mode adds the same AG piece after its RS.
          spec.include_ag = j.kind == Job::Kind::kTimeline || !fused(j.mode);
          results[i] = system::run_sublayer(sys, spec, j.mode, j.opts);
        }
      },
      [&](size_t) {
        ++done;
        progress(env.stderr_is_tty, done, jobs.size(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      });
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& j = jobs[i];
    PointResult& p = rep.points[j.point];
    rep.events += results[i].events;
    if (j.kind == Job::Kind::kMode) p.modes[j.mode] = std::move(results[i]);
    if (j.kind == Job::Kind::kPiece) p.pieces[j.piece] = std::move(results[i]);
    if (j.kind == Job::Kind::kCuSplit) p.cu_split[j.cus] = std::move(results[i]);
    if (j.kind == Job::Kind::kTimeline) p.timelines[j.mode] = std::move(results[i]);
  }
  for (auto& p : rep.points) {
    const auto& pc = p.pieces;
    for (auto& [m, r] : p.modes) {
      if (fused(m)) system::append_ag(r, pc.at(system::Piece::kAgCu));
    }
    p.modes[system::Mode::kSequential] = system::compose_sequential(
        pc.at(system::Piece::kGemm), pc.at(system::Piece::kRsCu), pc.at(system::Piece::kAgCu));
    p.modes[system::Mode::kIdeal] =
        system::compose_ideal(pc.at(system::Piece::kGemm), pc.at(system::Piece::kRsCu),
                              pc.at(system::Piece::kAgCu), false);
    if (pc.count(system::Piece::kRsNmc)) {
      p.modes[system::Mode::kIdealNmc] =
          system::compose_ideal(pc.at(system::Piece::kGemm), pc.at(system::Piece::kRsNmc),
                                pc.at(system::Piece::kAgCu), true);
    }
  }
  rep.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  write_reproduction(rep, dir);
  const std::string plot = "/usr/bin/python3 '" +
                           (env.source_dir / "tools" / "plot_t3.py").string() + "' '" +
                           dir.string() + "'";
  const auto t_plot = std::chrono::steady_clock::now();
  const bool drawn = std::system(plot.c_str()) == 0;
  const double plot_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_plot).count();
  if (!drawn) {
    std::fprintf(stderr,
                 "t3sim reproduce: note: figures not drawn (needs /usr/bin/python3 with "
                 "matplotlib; run tools/bootstrap.sh)\n");
  }
  std::printf(
      "reproduce: %zu points, %zu runs on %u threads in %.2f s wall (%.2f s with the figures); "
      "%llu events, %.1f M events/s -> %s\n",
      rep.points.size(), jobs.size(), rep.threads, rep.wall_s, rep.wall_s + plot_s,
      static_cast<unsigned long long>(rep.events),
      static_cast<double>(rep.events) / rep.wall_s / 1e6, dir.c_str());
  return 0;
}

}  // namespace t3sim::cli
