// Cost of building large systems: wall time and peak resident memory of `t3sim check`'s system
// construction (system::BuildFor::kCheck: routes and every validation, no links, memory for GPU 0)
// and of a full run build (BuildFor::kRun: every GPU's memory, every link), for ring and fully
// connected fabrics at 256, 1024 and 4096 GPUs. Each case runs in a forked child so its peak RSS is
// its own. The machine is configs/systems/t3-ring-8.json with "gpus" and the topology replaced. A
// fully connected run build (num_gpus^2 link components) is skipped above 256 GPUs.
// Usage: t3sim_bench_system_build [GPUS...] (default 256 1024 4096). Not a test: run by hand.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "models/system/system.h"
#include "sim/config.h"
#include "sim/simulator.h"

namespace {

using t3sim::ConfigDoc;
using t3sim::ConfigNode;
using t3sim::Simulator;
using t3sim::system::BuildFor;

ConfigDoc machine(const std::string& topology, int gpus) {
  const std::filesystem::path configs = std::filesystem::path(T3SIM_SOURCE_DIR) / "configs";
  ConfigDoc doc = t3sim::system::load_system_config("t3-ring-8", configs);
  doc.root["gpus"] = gpus;
  doc.root["fabric"]["topology"] = topology;
  if (topology != "ring") doc.root["fabric"].erase("bidirectional");
  return doc;
}

// Builds in this (child) process; prints one line; exit status 0 on success.
int build_once(const std::string& topology, int gpus, BuildFor purpose) {
  const ConfigDoc doc = machine(topology, gpus);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    Simulator sim;
    t3sim::system::System sys(sim, ConfigNode::root(doc), 0, purpose);
  } catch (const std::exception& e) {
    std::printf("  error: %s\n", e.what());
    return 1;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("%-16s %5d gpus  %-5s  %8.3f s  peak RSS %8.1f MiB\n", topology.c_str(), gpus,
              purpose == BuildFor::kCheck ? "check" : "build", s,
              static_cast<double>(ru.ru_maxrss) / 1024.0);
  return 0;
}

void run_forked(const std::string& topology, int gpus, BuildFor purpose) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    const int rc = build_once(topology, gpus, purpose);
    std::fflush(stdout);
    std::_Exit(rc);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
    std::printf("%-16s %5d gpus  failed (killed or fork error)\n", topology.c_str(), gpus);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {256, 1024, 4096};
  for (const char* topology : {"ring", "fully_connected"}) {
    for (int n : sizes) {
      run_forked(topology, n, BuildFor::kCheck);
      if (std::string(topology) == "ring" || n <= 256) run_forked(topology, n, BuildFor::kRun);
    }
  }
  return 0;
}
