// The sweep runner: a share of a sweep's points on worker threads, and the MPI distribution of
// sweeps (built when CMake finds MPI; T3SIM_HAVE_MPI). MpiSession loads the MPI module
// (mpi_module.h) and initialises MPI only when the process was started by a launcher (mpirun sets
// OMPI_COMM_WORLD_SIZE or PMI_SIZE), so plain runs never load or touch MPI. Points are dealt
// round-robin (index % size == rank); ranks > 0 send each finished row to rank 0, which alone
// writes the file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "studies/sweep_output.h"
#include "studies/sweep_spec.h"

struct T3simMpiApi;  // studies/mpi_module.h

namespace t3sim::studies {

class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  unsigned size() const { return size_; }
  unsigned rank() const { return rank_; }
  // The MPI module's calls (size() > 1 only).
  const T3simMpiApi* api() const { return api_; }
  // Ends every rank of the run with exit status `code` (MPI_Abort): a rank that fails leaves the
  // others blocked in MPI calls, so returning would hang the run. Without MPI: std::exit(code).
  [[noreturn]] void abort(int code);

 private:
  unsigned size_ = 1;
  unsigned rank_ = 0;
  const T3simMpiApi* api_ = nullptr;  // set once MPI is initialised
};

// Runs `todo` on `threads` threads, calling `emit(index, row)` (serialised) per finished point.
void run_sweep_share(const Env& env, const SweepSpec& spec, const std::vector<size_t>& todo,
                     unsigned threads, bool jsonl,
                     const std::function<void(size_t, const std::string&)>& emit);

struct SweepRequest {
  std::filesystem::path out;  // .csv, or .jsonl for JSON Lines
  unsigned threads = 1;
  bool resume = false;  // keep the points already in `out`
  // Called once before the first point runs: points already in `out`, points in all.
  std::function<void(size_t already, size_t total)> on_start;
  // Called after each finished point (serialised, from worker threads).
  std::function<void()> on_point;
};
struct SweepRun {
  size_t points = 0;   // in the spec
  size_t run_now = 0;  // run by this call
  size_t stale = 0;    // rows of `out` dropped by --resume: their axis values are not the spec's
};
// Runs every point of `spec` not yet in the output on this process and writes the file in point
// order (atomically, byte-identical for any thread count).
SweepRun run_sweep(const Env& env, const SweepSpec& spec, const SweepRequest& request);

struct MpiSweepResult {
  size_t points = 0;   // in the spec
  size_t run_now = 0;  // not already in the output before this run
  size_t stale = 0;    // as SweepRun::stale
  double wall_s = 0;
};
// The exit status for a failed sweep: 2 for bad input (ConfigError, UsageError), 1 otherwise.
int sweep_exit_code(const std::exception& e);

// Another rank's point failed: rank 0 removed the output this run created and rethrows the line
// that rank gave (its message and "(rank r of n)") with its exit status. The caller prints it and
// ends every rank (MpiSession::abort).
struct SweepRankError : std::runtime_error {
  SweepRankError(int exit_code, const std::string& line)
      : std::runtime_error(line), code(exit_code) {}
  int code;
};

// Runs this rank's share of the points; rank 0 writes `out`. A point failing on a rank > 0 is
// sent to rank 0, which discards the output and throws SweepRankError, while the failing rank
// waits to be ended by rank 0's MPI_Abort (so the file is gone before any rank exits); a failure
// on rank 0 discards the output and propagates. UsageError without MPI support.
MpiSweepResult run_sweep_mpi(const Env& env, const SweepSpec& spec, const std::string& out,
                             bool resume, unsigned threads, MpiSession& mpi);

}  // namespace t3sim::studies
