// Cost of simulating a large collective: a 1 GiB all-reduce (nccl-tests' all_reduce_perf -b 1G
// -e 1G, library defaults) on DGX H100 systems of 8 to 1024 GPUs (and more when the fabric allows
// it). Each case runs in a forked child, so wall time (config load, build and run: the process's
// work) and peak RSS are its own; the flow model runs ring on one node (NVLS needs packets). Prints
// one row per case: GPUs, fabric model, wall, events, peak RSS and the simulated time. 8 GPUs:
// configs/systems/dgx-h100.json; 16: dgx-h100-2node; larger: dgx-h100-128node with "nodes" (and
// "gpus") replaced. Usage: t3sim_bench_collectives
// [--model packet|flow] [GPUS...] (default: flow at 8 16 64, then packet at 8 16; 256 and 1024
// GPUs simulate every GPU's memory path (no folded collective yet): hours on a 2-core machine).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "models/collectives/collective.h"
#include "models/system/system.h"
#include "sim/config.h"
#include "sim/simulator.h"

namespace {

using t3sim::ConfigDoc;
using t3sim::ConfigNode;
using t3sim::Simulator;

constexpr uint64_t kBytes = uint64_t{1} << 30;

ConfigDoc machine(int gpus, const std::string& model) {
  const std::filesystem::path configs = std::filesystem::path(T3SIM_SOURCE_DIR) / "configs";
  const char* name = gpus == 8 ? "dgx-h100" : gpus == 16 ? "dgx-h100-2node" : "dgx-h100-128node";
  ConfigDoc doc = t3sim::system::load_system_config(name, configs);
  if (gpus > 16) {
    doc.root["gpus"] = gpus;
    doc.root["fabric"]["nodes"] = gpus / 8;
  }
  doc.root["fabric"]["model"] = model;
  return doc;
}

// Runs one case in this (child) process and prints its row; exit status 0 on success.
int run_case(int gpus, const std::string& model) {
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const ConfigDoc doc = machine(gpus, model);
    Simulator sim;
    t3sim::system::System sys(sim, ConfigNode::root(doc));
    t3sim::collectives::CollectiveSpec spec;
    spec.kind = t3sim::collectives::Kind::kAllReduce;
    spec.bytes = kBytes;
    // The default on one DGX H100 is NVLS, which reduces in the switch: packets only.
    if (model == "flow" && gpus == 8) spec.algo = t3sim::collectives::Algo::kRing;
    for (int g = 0; g < gpus; ++g) spec.group.push_back(g);
    t3sim::collectives::Collective c(sim, &sys, "bench", sys.machine(), sys.collectives(), spec);
    sim.elaborate();
    c.start(nullptr, 0);
    sim.run();
    sim.finish();
    if (!c.done()) {
      std::fprintf(stderr, "%d GPUs: the all-reduce did not complete\n", gpus);
      return 1;
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf("%6d  %-6s  %8.3f  %12llu  %8.1f  %10.1f\n", gpus, model.c_str(), wall,
                static_cast<unsigned long long>(sim.events()),
                static_cast<double>(ru.ru_maxrss) / 1024.0, c.elapsed().to_us());
    std::fflush(stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%d GPUs (%s): %s\n", gpus, model.c_str(), e.what());
    return 1;
  }
}

int run_forked(int gpus, const std::string& model) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) std::_Exit(run_case(gpus, model));
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::pair<int, std::string>> cases;
  std::string model;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--model" && i + 1 < argc) {
      model = argv[++i];
      continue;
    }
    const int gpus = std::atoi(a.c_str());
    if (gpus < 8 || gpus % 8 != 0) {
      std::fprintf(stderr, "usage: t3sim_bench_collectives [--model packet|flow] [GPUS (x8)...]\n");
      return 2;
    }
    cases.emplace_back(gpus, model.empty() ? "flow" : model);
  }
  if (cases.empty()) {
    for (const int g : {8, 16, 64}) cases.emplace_back(g, model.empty() ? "flow" : model);
    if (model.empty()) {
      for (const int g : {8, 16}) cases.emplace_back(g, "packet");
    }
  }
  std::printf("# all_reduce 1 GiB, DGX H100 systems; wall = process work (load, build, run)\n");
  std::printf("%6s  %-6s  %8s  %12s  %8s  %10s\n", "GPUs", "model", "wall_s", "events", "rss_MB",
              "sim_us");
  int failures = 0;
  for (const auto& [gpus, m] : cases) failures += run_forked(gpus, m) != 0 ? 1 : 0;
  return failures == 0 ? 0 : 1;
}
