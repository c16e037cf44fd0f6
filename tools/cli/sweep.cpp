// `t3sim sweep SPEC --out FILE [--jobs N] [--resume]`: runs every point of a sweep spec on N
// threads (each point its own Simulator), appending rows as points finish; with MPI (mpirun -np K)
// points are split across ranks and rank 0 writes. The final file is ordered by point index and
// byte-identical for any N and K. Progress on stderr: a bar on a terminal, else a line per 10 s.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>

#include "cli/common.h"
#include "sim/errors.h"
#include "tools/studies/parallel.h"
#include "tools/studies/sweep_runner.h"

namespace t3sim::cli {
namespace {

using namespace studies;  // NOLINT: the sweep engine's names

class Progress {
 public:
  Progress(size_t total, size_t already, bool tty)
      : total_(total),
        done_(already),
        start_done_(already),
        tty_(tty),
        t0_(std::chrono::steady_clock::now()),
        last_(t0_) {}
  void tick() {
    ++done_;
    const auto now = std::chrono::steady_clock::now();
    const double el = std::chrono::duration<double>(now - t0_).count();
    const double rate = static_cast<double>(done_ - start_done_) / std::max(el, 1e-9);
    const double eta = rate > 0 ? static_cast<double>(total_ - done_) / rate : 0;
    if (tty_) {
      const int width = 30;
      const int filled = static_cast<int>(width * done_ / std::max<size_t>(total_, 1));
      std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu %.1f points/s ETA %.0f s ", filled,
                   "##############################", width - filled, "", done_, total_, rate, eta);
      if (done_ == total_) std::fprintf(stderr, "\n");
    } else if (std::chrono::duration<double>(now - last_).count() >= 10 || done_ == total_) {
      last_ = now;
      std::fprintf(stderr, "sweep: %zu/%zu points, %.1f points/s, ETA %.0f s\n", done_, total_,
                   rate, eta);
    }
  }
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }
  size_t ran() const { return done_ - start_done_; }

 private:
  size_t total_, done_, start_done_;
  bool tty_;
  std::chrono::steady_clock::time_point t0_, last_;
};

}  // namespace

int cmd_sweep(const Args& args, const Env& env) {
  po::options_description desc("t3sim sweep options");
  std::string spec_path, out;
  unsigned jobs = 0;
  desc.add_options()("spec", po::value(&spec_path)->required(), "sweep spec (kind: sweep)")(
      "out", po::value(&out)->required(), "results file (.csv, or .jsonl for JSON Lines)")(
      "jobs,j", integer(&jobs, 0u, studies::kMaxThreads)->default_value(0),
      "threads per process, 1..256 (0 = all cores)")("resume", po::bool_switch(),
                                                     "skip points already in --out");
  po::positional_options_description pos;
  pos.add("spec", 1);
  po::variables_map vm;
  if (!parse_options(args, desc, vm, &pos, "t3sim sweep SPEC --out FILE [--jobs N] [--resume]")) {
    return 0;
  }
  MpiSession mpi;
  const ConfigDoc doc = load_config(spec_path, {env.configs_dir});
  const SweepSpec spec = read_sweep(env, doc);
  const unsigned threads = jobs == 0 ? std::max(1u, studies::default_threads() / mpi.size()) : jobs;
  if (mpi.size() > 1) {
    const MpiSweepResult r = run_sweep_mpi(env, spec, out, vm["resume"].as<bool>(), threads, mpi);
    if (mpi.rank() != 0) return 0;
    std::printf(
        "sweep %s: %zu points (%zu run now) in %.2f s, %.2f points/s, %u ranks x %u thread(s) -> "
        "%s\n",
        spec.name.c_str(), r.points, r.run_now, r.wall_s,
        r.wall_s > 0 ? static_cast<double>(r.run_now) / r.wall_s : 0.0, mpi.size(), threads,
        out.c_str());
    return 0;
  }
  std::optional<Progress> progress;
  SweepRequest req{out, threads, vm["resume"].as<bool>(), nullptr, nullptr};
  req.on_start = [&](size_t already, size_t total) {
    progress.emplace(total, already, env.stderr_is_tty);
  };
  req.on_point = [&] { progress->tick(); };
  run_sweep(env, spec, req);
  std::printf("sweep %s: %zu points (%zu run now) in %.2f s, %.2f points/s, %u thread(s) -> %s\n",
              spec.name.c_str(), spec.points(), progress->ran(), progress->elapsed(),
              static_cast<double>(progress->ran()) / std::max(progress->elapsed(), 1e-9), threads,
              out.c_str());
  return 0;
}

}  // namespace t3sim::cli
