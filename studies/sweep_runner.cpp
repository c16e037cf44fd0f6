// A sweep on one process, and one share of a sweep's points on worker threads: each point runs in
// its own Simulator and its row is formatted on the worker; rows are handed on one at a time as
// points finish. A failed point ends the sweep and removes the output it created
// (SweepOutput::discard).
#include "studies/sweep_runner.h"

#include "studies/parallel.h"

namespace t3sim::studies {

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

SweepRun run_sweep(const Env& env, const SweepSpec& spec, const SweepRequest& req) {
  SweepOutput output(req.out, spec, req.resume, sweep_fingerprint(env, spec));
  std::vector<size_t> todo;
  for (size_t i = 0; i < spec.points(); ++i) {
    if (!output.done(i)) todo.push_back(i);
  }
  if (req.on_start) req.on_start(spec.points() - todo.size(), spec.points());
  try {
    run_sweep_share(env, spec, todo, req.threads, is_jsonl(req.out),
                    [&](size_t i, const std::string& line) {
                      output.append(i, line);
                      if (req.on_point) req.on_point();
                    });
    output.finalize();
  } catch (...) {
    output.discard();  // no header-only or partial file from a failed point
    throw;
  }
  return SweepRun{spec.points(), todo.size(), output.stale()};
}

}  // namespace t3sim::studies
