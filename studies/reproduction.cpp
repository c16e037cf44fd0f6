// The reproduction's job plan (modes, isolated pieces, CU splits, Fig. 17 timelines per point),
// the parallel run and the per-point assembly of composed modes.
#include <algorithm>
#include <chrono>

#include "models/system/system.h"
#include "sim/errors.h"
#include "studies/inputs.h"
#include "studies/parallel.h"
#include "studies/reproduction.h"

namespace t3sim::studies {
namespace {

struct Job {
  size_t point = 0;
  enum class Kind { kMode, kPiece, kCuSplit, kTimeline } kind = Kind::kMode;
  system::Mode mode = system::Mode::kSequential;
  system::Piece piece = system::Piece::kGemm;
  uint32_t cus = 0;
  system::RunOptions opts;
};

// One point per (system, model, TP, sublayer); a paper point set's system comes from the
// experiment's template. Each point keeps the set's modes its system can run.
void add_points(const Env& env, const Experiment& e, const PointSet& ps, bool large,
                std::vector<PointResult>& out) {
  const std::vector<std::string> systems =
      ps.systems.empty() ? std::vector<std::string>{""} : ps.systems;
  std::map<std::string, ConfigDoc> docs;
  for (const auto& named : systems) {
    for (const auto& model : ps.models) {
      for (int tp : ps.tp) {
        const std::string sys = named.empty() ? system_for(e, tp) : named;
        if (!docs.count(sys)) docs.emplace(sys, load_system(env, sys, {}));
        for (const auto& sl : ps.sublayers) {
          PointResult p;
          p.system = sys;
          p.model = model;
          p.tp = tp;
          p.sublayer = sl;
          p.large = large;
          const SublayerChoice c = choose_sublayer(env, model, tp, sl, 0);
          p.tokens = c.tokens;
          p.spec = c.spec;
          p.spec.seed = e.seed;
          for (system::Mode m : ps.modes) {
            if (mode_runs_on(docs.at(sys), m)) p.run_modes.push_back(m);
          }
          out.push_back(std::move(p));
        }
      }
    }
  }
}

std::vector<Job> plan_jobs(const Experiment& e, const std::vector<PointResult>& points,
                           const std::filesystem::path& dir) {
  std::vector<Job> jobs;
  for (size_t i = 0; i < points.size(); ++i) {
    const PointResult& p = points[i];
    const bool fig17 = !p.large && p.model == e.fig17_model && p.tp == e.fig17_tp &&
                       p.sublayer == e.fig17_sublayer;
    for (system::Mode m : p.run_modes) {
      if (system::mode_spec(m).compose != nullptr) continue;  // composed from isolated pieces
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
    for (system::Mode m : p.run_modes) {  // the reduce-scatter piece of every composed mode
      const system::ModeSpec& ms = system::mode_spec(m);
      if (ms.compose != nullptr &&
          std::find(pieces.begin(), pieces.end(), ms.rs_piece) == pieces.end()) {
        pieces.push_back(ms.rs_piece);
      }
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

bool fused(system::Mode m) { return system::mode_spec(m).fused_rs != system::RsFusion::kNone; }

// Places each job's result in its point, then composes sequential and the ideal modes from the
// isolated pieces (per the mode table) and appends the unfused all-gather to the fused modes.
void assemble(std::vector<PointResult>& points, uint64_t& events, const std::vector<Job>& jobs,
              std::vector<system::SublayerResult>& results) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& j = jobs[i];
    PointResult& p = points[j.point];
    events += results[i].events;
    if (j.kind == Job::Kind::kMode) p.modes[j.mode] = std::move(results[i]);
    if (j.kind == Job::Kind::kPiece) p.pieces[j.piece] = std::move(results[i]);
    if (j.kind == Job::Kind::kCuSplit) p.cu_split[j.cus] = std::move(results[i]);
    if (j.kind == Job::Kind::kTimeline) p.timelines[j.mode] = std::move(results[i]);
  }
  for (auto& p : points) {
    const auto& pc = p.pieces;
    for (auto& [m, r] : p.modes) {
      if (fused(m)) system::append_ag(r, pc.at(system::Piece::kAgCu));
    }
    for (system::Mode m : p.run_modes) {
      const system::ModeSpec& ms = system::mode_spec(m);
      if (ms.compose == nullptr) continue;
      p.modes[m] =
          ms.compose(pc.at(system::Piece::kGemm), pc.at(ms.rs_piece), pc.at(system::Piece::kAgCu));
      p.modes[m].mode = m;  // composers leave the mode to their caller
    }
  }
}

system::SublayerResult run_job(const Job& j, const PointResult& p, const ConfigDoc& sys) {
  system::SublayerSpec spec = p.spec;
  if (j.kind == Job::Kind::kPiece) return system::run_piece(sys, spec, j.piece);
  spec.ar_cus = j.cus == 0 ? spec.ar_cus : j.cus;
  // The all-gather is not fused: every mode adds the same AG piece after its RS.
  spec.include_ag = j.kind == Job::Kind::kTimeline || !fused(j.mode);
  return system::run_sublayer(sys, spec, j.mode, j.opts);
}

// Plans, runs (on `threads` workers) and assembles the jobs of one set of points, on systems with
// `sets` overrides applied.
void run_group(const Env& env, const Experiment& exp, const std::vector<std::string>& sets,
               const std::filesystem::path& dir, unsigned threads,
               const std::function<void(size_t, size_t)>& progress,
               std::vector<PointResult>& points, Reproduction& rep) {
  // A systems study sizes each system to the point's TP; the paper's template names a machine of
  // exactly TP GPUs.
  const bool sized = exp.kind == StudyKind::kSystems;
  const auto key = [](const PointResult& p) { return p.system + "@" + std::to_string(p.tp); };
  std::map<std::string, ConfigDoc> systems;
  for (const auto& p : points) {
    if (!systems.count(key(p))) {
      systems.emplace(key(p), load_system(env, p.system, sets, sized ? p.tp : 0));
    }
  }
  const std::vector<Job> jobs = plan_jobs(exp, points, dir);
  std::vector<system::SublayerResult> results(jobs.size());
  rep.runs += jobs.size();
  size_t done = 0;
  run_parallel(
      jobs.size(), threads,
      [&](size_t i) {
        const PointResult& p = points[jobs[i].point];
        results[i] = run_job(jobs[i], p, systems.at(key(p)));
      },
      [&](size_t) {
        ++done;
        if (progress) progress(done, jobs.size());
      });
  assemble(points, rep.events, jobs, results);
}

std::filesystem::path experiment_file(const Env& env, const ReproductionRequest& req) {
  return req.experiment.empty() ? env.configs_dir / "experiments" / "t3-paper.json"
                                : req.experiment;
}

void refuse_ablation(const Experiment& e, const ReproductionRequest& req,
                     const std::filesystem::path& file) {
  if (req.ablation && e.kind == StudyKind::kSystems) {
    throw ConfigError(file.string(), "/study",
                      "--ablation: experiment '" + e.name +
                          "' is a systems study and has no ablation variants; drop --ablation");
  }
}

}  // namespace

void check_request(const Env& env, const ReproductionRequest& req) {
  const std::filesystem::path file = experiment_file(env, req);
  refuse_ablation(read_experiment(env, load_config(file.string(), {env.configs_dir})), req, file);
}

Reproduction run_reproduction(const Env& env, const ReproductionRequest& req) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::filesystem::path experiment = experiment_file(env, req);
  const ConfigDoc doc = load_config(experiment.string(), {env.configs_dir});
  Reproduction rep;
  rep.exp = read_experiment(env, doc);
  refuse_ablation(rep.exp, req, experiment);
  rep.dir = req.out.empty() ? std::filesystem::path("results") / rep.exp.name : req.out;
  std::error_code ec;
  std::filesystem::create_directories(rep.dir, ec);
  if (ec) {
    throw ConfigError(rep.dir.string(), "",
                      "cannot create the results folder: " + ec.message() +
                          "; name a folder you can write to with --out");
  }
  if (rep.exp.kind == StudyKind::kSystems) {
    add_points(env, rep.exp, rep.exp.study, false, rep.points);
  } else {
    add_points(env, rep.exp, rep.exp.fig16, false, rep.points);
    add_points(env, rep.exp, rep.exp.large, true, rep.points);
  }
  rep.threads = req.threads == 0 ? default_threads() : req.threads;
  run_group(env, rep.exp, {}, rep.dir, rep.threads, req.progress, rep.points, rep);
  if (req.ablation) {
    // The Fig. 16 points only: no Fig. 6 splits, no Fig. 17 runs, no large models.
    Experiment fig16 = rep.exp;
    fig16.ar_cus.clear();
    fig16.fig17_model.clear();
    for (const AblationVariant& v : rep.exp.ablation) {
      AblationResult a{v, {}};
      add_points(env, fig16, fig16.fig16, false, a.points);
      run_group(env, fig16, v.set, rep.dir, rep.threads, req.progress, a.points, rep);
      rep.ablation.push_back(std::move(a));
    }
  }
  rep.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  write_reproduction(rep, rep.dir);
  return rep;
}

}  // namespace t3sim::studies
