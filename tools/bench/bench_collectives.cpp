// Cost of simulating a large collective: an all-reduce (nccl-tests' all_reduce_perf, library
// defaults; 1 GiB unless --bytes) on DGX H100 systems of 8 to 8192 GPUs. Each case runs in a forked
// child, so wall time (config load, build and run: the process's work) and peak RSS are its own.
// Prints one row per case: GPUs, fabric model, folded or not, the system's build (config load and
// System: time, peak RSS), the whole build (with the collective's schedule), wall, events, peak RSS
// and the simulated time. 8 GPUs: configs/systems/dgx-h100.json;
// 16: dgx-h100-2node; larger: dgx-h100-128node with "nodes" (and "gpus") replaced. --fold runs
// the folded collective (System with one active GPU, remote memory folded, spec.fold): only GPU
// 0's memory path is simulated; a fabric that is not the same from every GPU fails the case.
// --whole-nodes folds onto node 0's GPUs under whole-node rotations instead (a flat ring across
// nodes; System with a node's GPUs active).
// --build-only stops after building (no events); with --fold on a fabric that cannot fold it builds
// the one-GPU system alone (what a folded run would pay). --algo picks the algorithm (auto: the
// library's choice; the flow model then runs ring on one node, NVLS needs packets); --placement
// the leaf-spine's node placement (striped: consecutive nodes on different leaves, which lets a
// hierarchical all-reduce fold).
// Usage: t3sim_bench_collectives [--model packet|flow] [--fold] [--whole-nodes] [--bytes N]
// [--algo A] [--placement blocked|striped] [--build-only] [GPUS...]. Without GPUS: the scale
// series, folded packet runs of 8 (NVLS), 16 (two-level) and 64, 256, 1024 GPUs (striped
// leaf-spine), hierarchical across nodes. Unfolded runs of 256 and more GPUs simulate every GPU's
// memory path: hours here.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "models/collectives/collective.h"
#include "models/gpu/remote_memory.h"
#include "models/system/system.h"
#include "sim/config.h"
#include "sim/simulator.h"

namespace {

using t3sim::ConfigDoc;
using t3sim::ConfigNode;
using t3sim::Simulator;

struct Case {
  int gpus = 8;
  std::string model = "flow";
  bool fold = false;
  bool whole_nodes = false;  // with fold: node 0's GPUs stand for the others
  bool build_only = false;
  uint64_t bytes = uint64_t{1} << 30;
  std::string algo = "auto";
  std::string placement = "blocked";  // leaf_spine's node placement (more than 16 GPUs)
};

ConfigDoc machine(const Case& k) {
  const std::filesystem::path configs = std::filesystem::path(T3SIM_SOURCE_DIR) / "configs";
  const int gpus = k.gpus;
  const char* name = gpus == 8 ? "dgx-h100" : gpus == 16 ? "dgx-h100-2node" : "dgx-h100-128node";
  ConfigDoc doc = t3sim::system::load_system_config(name, configs);
  if (gpus > 16) {
    doc.root["gpus"] = gpus;
    doc.root["fabric"]["nodes"] = gpus / 8;
    doc.root["fabric"]["placement"] = k.placement;
  }
  doc.root["fabric"]["model"] = k.model;
  return doc;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

// The system's build (config load and System) and its peak RSS, then the whole case's.
struct Row {
  double system_s = 0;
  double system_mb = 0;
  double build_s = 0;
  double wall_s = 0;
  uint64_t events = 0;
  double sim_us = 0;
};

void print_row(const Case& k, const Row& r) {
  std::printf("%6d  %-6s  %-12s  %-7s  %-4s  %8.3f  %8.1f  %8.3f  %8.3f  %12llu  %8.1f  %10.1f\n",
              k.gpus, k.model.c_str(), k.algo.c_str(), k.gpus > 16 ? k.placement.c_str() : "-",
              k.fold ? (k.whole_nodes ? "node" : "yes") : "no", r.system_s, r.system_mb, r.build_s,
              r.wall_s, static_cast<unsigned long long>(r.events), peak_rss_mb(), r.sim_us);
  std::fflush(stdout);
}

// Runs one case in this (child) process and prints its row; exit status 0 on success.
int run_case(const Case& k) {
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const ConfigDoc doc = machine(k);
    Simulator sim;
    const int per_node = doc.root["fabric"].value("gpus_per_node", k.gpus);
    t3sim::system::System sys(sim, ConfigNode::root(doc),
                              k.fold ? (k.whole_nodes ? per_node : 1) : 0);
    Row row;
    row.system_s = seconds_since(t0);
    row.system_mb = peak_rss_mb();
    std::optional<t3sim::common::GpuRotation> rot = sys.fabric().symmetry();
    if (rot) rot->whole_nodes = k.whole_nodes;
    const bool symmetric = rot.has_value();
    if (k.fold && k.build_only && !symmetric) {  // the one-GPU system a folded run would build
      row.build_s = row.wall_s = row.system_s;
      print_row(k, row);
      return 0;
    }
    if (k.fold) {
      if (!symmetric) {
        std::fprintf(stderr, "%d GPUs: the '%s' fabric cannot fold (not the same from every GPU)\n",
                     k.gpus, sys.fabric().topology().kind.c_str());
        return 1;
      }
      sys.machine().remote->fold(nullptr, *rot);
    }
    t3sim::collectives::CollectiveSpec spec;
    spec.kind = t3sim::collectives::Kind::kAllReduce;
    spec.bytes = k.bytes;
    spec.fold = k.fold;
    if (k.fold) spec.fold_rotation = *rot;
    spec.algo = t3sim::collectives::parse_algo(k.algo, "--algo");
    // The default on one DGX H100 is NVLS, which reduces in the switch: packets only.
    if (k.model == "flow" && k.gpus == 8 && k.algo == "auto") {
      spec.algo = t3sim::collectives::Algo::kRing;
    }
    for (int g = 0; g < k.gpus; ++g) spec.group.push_back(g);
    t3sim::collectives::Collective c(sim, &sys, "bench", sys.machine(), sys.collectives(), spec);
    sim.elaborate();
    row.build_s = seconds_since(t0);
    if (!k.build_only) {
      c.start(nullptr, 0);
      sim.run();
      sim.finish();
      if (!c.done()) {
        std::fprintf(stderr, "%d GPUs: the all-reduce did not complete\n", k.gpus);
        return 1;
      }
    }
    row.wall_s = seconds_since(t0);
    row.events = sim.events();
    row.sim_us = k.build_only ? 0.0 : c.elapsed().to_us();
    print_row(k, row);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%d GPUs (%s): %s\n", k.gpus, k.model.c_str(), e.what());
    return 1;
  }
}

int run_forked(const Case& k) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) std::_Exit(run_case(k));
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int usage() {
  std::fprintf(
      stderr,
      "usage: t3sim_bench_collectives [--model packet|flow] [--fold] [--whole-nodes] "
      "[--bytes N] [--algo A] [--placement blocked|striped] [--build-only] [GPUS (x8)...]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases;
  Case proto;
  std::string model;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--model" && i + 1 < argc) {
      model = argv[++i];
      if (model != "packet" && model != "flow") return usage();
      continue;
    }
    if (a == "--bytes" && i + 1 < argc) {
      proto.bytes = std::strtoull(argv[++i], nullptr, 10);
      if (proto.bytes == 0) return usage();
      continue;
    }
    if (a == "--algo" && i + 1 < argc) {
      proto.algo = argv[++i];
      continue;
    }
    if (a == "--placement" && i + 1 < argc) {
      proto.placement = argv[++i];
      if (proto.placement != "blocked" && proto.placement != "striped") return usage();
      continue;
    }
    if (a == "--whole-nodes") {
      proto.fold = proto.whole_nodes = true;
      continue;
    }
    if (a == "--fold" || a == "--build-only") {
      (a == "--fold" ? proto.fold : proto.build_only) = true;
      continue;
    }
    const int gpus = std::atoi(a.c_str());
    if (gpus < 8 || gpus % 8 != 0) return usage();
    Case k = proto;
    k.gpus = gpus;
    k.model = model.empty() ? "flow" : model;
    cases.push_back(k);
  }
  if (cases.empty()) {  // the scale series: folded, packets, 8 to 1024 GPUs
    for (const int g : {8, 16, 64, 256, 1024}) {
      Case k = proto;
      k.gpus = g;
      k.model = model.empty() ? "packet" : model;
      k.fold = true;
      if (g > 8 && proto.algo == "auto") k.algo = "hierarchical";  // Tree does not fold
      if (g > 16) k.placement = "striped";
      cases.push_back(k);
    }
  }
  std::printf("# all_reduce %llu B, DGX H100 systems; wall = process work (load, build, run)\n",
              static_cast<unsigned long long>(proto.bytes));
  std::printf("%6s  %-6s  %-12s  %-7s  %-4s  %8s  %8s  %8s  %8s  %12s  %8s  %10s\n", "GPUs",
              "model", "algo", "placing", "fold", "system_s", "sys_MB", "build_s", "wall_s",
              "events", "rss_MB", "sim_us");
  int failures = 0;
  for (const Case& k : cases) failures += run_forked(k) != 0 ? 1 : 0;
  return failures == 0 ? 0 : 1;
}
