// `t3sim sweep SPEC --out FILE [--jobs N] [--resume]`: runs every point of a sweep spec on N
// threads (each point its own Simulator), appending rows as points finish; with MPI (mpirun -np K)
// points are split across ranks and rank 0 writes. The final file is ordered by point index and
// byte-identical for any N and K. Progress on stderr: a bar on a terminal, else a line per 10 s.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "cli/common.h"
#include "cli/parallel.h"
#include "cli/sweep_mpi.h"
#include "cli/sweep_output.h"
#include "sim/errors.h"

namespace t3sim::cli {
namespace {

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

void run_sweep_share(const Env& env, const SweepSpec& spec, const std::vector<size_t>& todo,
                     unsigned threads, bool jsonl,
                     const std::function<void(size_t, const std::string&)>& emit) {
  std::vector<std::string> lines(todo.size());
  run_parallel(
      todo.size(), threads,
      [&](size_t k) {
        const size_t i = todo[k];
        const SweepPoint p = sweep_point(spec, i);
        lines[k] = format_sweep_row(spec, jsonl, i, p, run_sweep_point(env, p));
      },
      [&](size_t k) { emit(todo[k], lines[k]); });
}

int cmd_sweep(const Args& args, const Env& env) {
  po::options_description desc("t3sim sweep options");
  std::string spec_path, out;
  unsigned jobs = 0;
  desc.add_options()("spec", po::value(&spec_path)->required(), "sweep spec (kind: sweep)")(
      "out", po::value(&out)->required(), "results file (.csv, or .jsonl for JSON Lines)")(
      "jobs,j", po::value(&jobs)->default_value(0), "threads per process (0 = all cores)")(
      "resume", po::bool_switch(), "skip points already in --out");
  po::positional_options_description pos;
  pos.add("spec", 1);
  po::variables_map vm;
  if (!parse_options(args, desc, vm, &pos, "t3sim sweep SPEC --out FILE [--jobs N] [--resume]")) {
    return 0;
  }
  MpiSession mpi;
  const ConfigDoc doc = load_config(spec_path, {env.configs_dir});
  const SweepSpec spec = read_sweep(env, doc);
  const unsigned threads = jobs == 0 ? std::max(1u, default_threads() / mpi.size()) : jobs;
  if (mpi.size() > 1) return run_sweep_mpi(env, spec, out, vm["resume"].as<bool>(), threads, mpi);
  SweepOutput output(out, spec, vm["resume"].as<bool>());
  std::vector<size_t> todo;
  for (size_t i = 0; i < spec.points(); ++i) {
    if (!output.done(i)) todo.push_back(i);
  }
  Progress progress(spec.points(), spec.points() - todo.size(), env.stderr_is_tty);
  run_sweep_share(env, spec, todo, threads, is_jsonl(out), [&](size_t i, const std::string& line) {
    output.append(i, line);
    progress.tick();
  });
  output.finalize();
  std::printf("sweep %s: %zu points (%zu run now) in %.2f s, %.2f points/s, %u thread(s) -> %s\n",
              spec.name.c_str(), spec.points(), progress.ran(), progress.elapsed(),
              static_cast<double>(progress.ran()) / std::max(progress.elapsed(), 1e-9), threads,
              out.c_str());
  return 0;
}

}  // namespace t3sim::cli
