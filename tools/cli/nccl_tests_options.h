// Options of `t3sim nccl-tests`, with nccl-tests' spellings and their meaning in a deterministic
// simulator: -b/-e/-f/-i choose the sizes; -d the element type; -o the reduction (printed); -r the
// root of broadcast/reduce; -t threads x -g GPUs per thread choose the group (the first t x g GPUs;
// default every GPU of the system); -n iterations and -w warm-up iterations are accepted and
// printed, each simulated iteration being identical; -c 0 prints N/A in the #wrong columns.
// Processes: nccl-tests runs its -t threads x -g GPUs in one process, where NCCL's P2P transport
// hands out direct pointers (the library's "p2p_direct"); --p2p-direct off stands for one process
// per GPU (mpirun -np N ... -g 1).
// Contract: parse_nccl_tests() throws UsageError (exit 2) naming the option for any bad value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/trace_options.h"
#include "models/collectives/collective.h"
#include "models/collectives/kinds.h"

namespace t3sim::cli {

struct NcclDtype {
  const char* name;
  uint32_t bytes;
};

// Distinct sizes one nccl-tests run prints at most (each is a simulation).
inline constexpr size_t kMaxNcclRows = 1000;

struct NcclTestsOptions {
  const collectives::KindSpec* kind = nullptr;
  const NcclDtype* type = nullptr;
  std::string redop = "sum";
  std::string system;
  uint64_t lo = 0;
  uint64_t hi = 0;
  double factor = 1;        // -f (used when step_bytes is 0)
  uint64_t step_bytes = 0;  // -i: linear steps
  int threads = 1;
  int gpus_per_thread = 0;  // 0: not given
  int gpus = 0;             // group size, resolved
  int iters = 20;
  int warmup = 5;
  int check = 1;
  std::string compare;
  bool verbose = false;
  std::vector<std::string> sets;
  // NCCL's P2P direct mode: auto (on: one process drives every GPU of the group), on, off.
  std::string p2p_direct = "auto";
  collectives::CollectiveSpec base;  // everything but the size and the group
  TraceCli trace;                    // --trace-out: a timeline of the largest size

  // The rows to print: the sizes of -b/-e/-f (or -i) rounded down to whole `unit`s (element x
  // group for the split kinds), each distinct byte count once, in order. A UsageError when none
  // is left (every size under one unit: names -b/-e and the smallest size that runs) or when they
  // are more than kMaxNcclRows (names -f or -i).
  std::vector<uint64_t> rows(uint64_t unit) const;
  std::string step_text() const;
};

NcclTestsOptions parse_nccl_tests(const Args& args, bool& help);
// The "collectives.p2p_direct" override the run's process model implies ("...=true" or
// "...=false"); applied before the --set overrides, so an explicit --set still wins.
std::string p2p_direct_override(const NcclTestsOptions& o);
// Sets o.gpus from --gpus / -t x -g against the system's `total`; UsageError if out of range.
void resolve_nccl_tests_gpus(NcclTestsOptions& o, int total);

}  // namespace t3sim::cli
