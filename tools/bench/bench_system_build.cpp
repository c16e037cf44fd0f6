// Cost of `t3sim check` at its worst over in-range inputs, and of building large systems: wall time
// and peak resident memory of check's system construction (system::BuildFor::kCheck: routes and
// every validation, no links, memory for GPU 0) and of a full run build (BuildFor::kRun: every
// GPU's memory, every link), for ring, switch and fully connected fabrics at 256, 1024 and 4096
// GPUs (8192, the largest "gpus" allowed, on request; a fully connected fabric stops at 4096, so
// its 8192 check is a refusal); then check of the largest documents the JSON limits
// let through (sim/json_file.h, sim/config.h): a 255 MiB string (refused: over 16 MiB), strings at
// the string and parsed-memory bounds, an annotation of values at the parsed-memory bound, a
// config of values at the origin bound. Each case runs in a forked child
// whose peak RSS, wall and CPU time the parent reads (wait4). The last line is the worst check case
// (CPU time: wall time on a shared machine measures the others' load) against the bounds every
// in-range input must meet: 1 GB and 10 s. The machine is configs/systems/t3-ring-8.json with
// "gpus" and the topology replaced (a switch: dgx-h100's). A fully connected run build (num_gpus^2
// link components) is skipped above 256 GPUs.
// Usage: t3sim_bench_system_build [GPUS...] (default 256 1024 4096). Not a test: run by hand.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
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
  if (topology == "switch") {  // dgx-h100's NVSwitch
    doc.root["fabric"]["switch"] =
        t3sim::system::load_system_config("dgx-h100", configs).root["fabric"]["switch"];
    doc.root["fabric"]["switch"]["ports"] = gpus;
  }
  return doc;
}

struct Cost {
  double seconds = 0;  // wall
  double cpu_s = 0;    // user + system: what the case costs on an idle core
  double rss_mib = 0;
  bool ok = false;
};

// Runs `body` in a forked child; its wall time and peak RSS as the parent sees them.
Cost run_forked(const std::function<void()>& body) {
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    int rc = 0;
    try {
      body();
    } catch (const std::exception& e) {
      std::printf("  (%s)\n", std::string(e.what()).substr(0, 160).c_str());
      rc = 1;  // an input error is an outcome of check too: its cost counts
    }
    std::fflush(stdout);
    std::_Exit(rc);
  }
  int status = 0;
  rusage ru{};
  Cost c;
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status)) return c;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  c.rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;
  const auto secs = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6;
  };
  c.cpu_s = secs(ru.ru_utime) + secs(ru.ru_stime);
  c.ok = true;
  return c;
}

void build(const ConfigDoc& doc, BuildFor purpose) {
  Simulator sim;
  t3sim::system::System sys(sim, ConfigNode::root(doc), 0, purpose);
}

struct Worst {
  Cost time, memory;
  std::string time_case, memory_case;
  void add(const std::string& name, const Cost& c) {
    if (c.cpu_s > time.cpu_s) time = c, time_case = name;
    if (c.rss_mib > memory.rss_mib) memory = c, memory_case = name;
  }
};

void report(const std::string& name, const Cost& c, Worst* worst) {
  if (!c.ok) {
    std::printf("%-40s failed (killed or fork error)\n", name.c_str());
    return;
  }
  std::printf("%-40s %8.3f s wall %8.3f s CPU  peak RSS %8.1f MiB\n", name.c_str(), c.seconds,
              c.cpu_s, c.rss_mib);
  if (worst != nullptr) worst->add(name, c);
}

// A system document that extends t3-ring-8 and carries `extra` (raw JSON members) beside it.
std::filesystem::path big_document(const std::string& name, const std::string& extra) {
  const auto path = std::filesystem::temp_directory_path() / ("t3sim_bench_" + name + ".json");
  std::ofstream(path) << R"({"kind": "system", "extends": "systems/t3-ring-8.json", )" << extra
                      << "}";
  return path;
}

std::string repeated(const std::string& item, size_t n) {
  std::string s = "[";
  s.reserve(n * (item.size() + 1) + 2);
  for (size_t i = 0; i < n; ++i) s += (i == 0 ? "" : ",") + item;
  return s + "]";
}

void check_file(const std::filesystem::path& path) {
  const std::filesystem::path configs = std::filesystem::path(T3SIM_SOURCE_DIR) / "configs";
  build(t3sim::load_config(path, {configs}), BuildFor::kCheck);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {256, 1024, 4096};
  Worst worst;
  for (const char* topology : {"ring", "switch", "fully_connected"}) {
    for (int n : sizes) {
      const ConfigDoc doc = machine(topology, n);
      const std::string name = std::string(topology) + " " + std::to_string(n) + " gpus";
      report(name + " check", run_forked([&] { build(doc, BuildFor::kCheck); }), &worst);
      if (std::string(topology) != "fully_connected" || n <= 256) {
        report(name + " build", run_forked([&] { build(doc, BuildFor::kRun); }), nullptr);
      }
    }
  }
  // The largest documents within the JSON limits (the file and parsed-memory bounds, the
  // config-values bound): each is read, resolved and checked (or refused) in full.
  // (Each text is written and freed before the fork: the child's RSS is its own reading.)
  const std::vector<std::pair<std::string, std::function<std::string()>>> docs = {
      {"255 MiB description string",
       [] { return R"("description": ")" + std::string((size_t{255} << 20) - 200, 'x') + "\""; }},
      {"15 x 16 MiB description strings",
       [] { return R"("description": )" + repeated('"' + std::string(16 << 20, 'x') + '"', 15); }},
      {"2.7 M values in an annotation",
       [] { return R"("description": )" + repeated("{}", 2'700'000); }},
      {"1 M values in a config", [] { return R"("pad": )" + repeated("0", 1'100'000); }},
  };
  for (size_t i = 0; i < docs.size(); ++i) {
    const auto path = big_document(std::to_string(i), docs[i].second());
    report("check " + docs[i].first, run_forked([&] { check_file(path); }), &worst);
    std::filesystem::remove(path);
  }
  std::printf(
      "worst check: %.3f s CPU (%s), %.1f MiB (%s); bounds 10 s and 1 GB: %s\n", worst.time.cpu_s,
      worst.time_case.c_str(), worst.memory.rss_mib, worst.memory_case.c_str(),
      worst.time.cpu_s <= 10 && worst.memory.rss_mib <= 1e9 / (1 << 20) ? "within" : "EXCEEDED");
  return 0;
}
