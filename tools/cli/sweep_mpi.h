// MPI distribution of sweeps (built when CMake finds MPI; T3SIM_HAVE_MPI). MpiSession initialises
// MPI only when the process was started by a launcher (mpirun sets OMPI_COMM_WORLD_SIZE or
// PMI_SIZE), so plain runs never touch MPI. Points are dealt round-robin (index % size == rank);
// ranks > 0 send each finished row to rank 0, which alone writes the file.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/sweep_output.h"
#include "cli/sweep_spec.h"

namespace t3sim::cli {

class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  unsigned size() const { return size_; }
  unsigned rank() const { return rank_; }

 private:
  unsigned size_ = 1;
  unsigned rank_ = 0;
  bool active_ = false;
};

// Runs `todo` on `threads` threads, calling `emit(index, row)` (serialised) per finished point.
void run_sweep_share(const Env& env, const SweepSpec& spec, const std::vector<size_t>& todo,
                     unsigned threads, bool jsonl,
                     const std::function<void(size_t, const std::string&)>& emit);

int run_sweep_mpi(const Env& env, const SweepSpec& spec, const std::string& out, bool resume,
                  unsigned threads, MpiSession& mpi);

}  // namespace t3sim::cli
