// Microbenchmarks on one system: `t3sim gemm` (one GEMM on GPU 0), `t3sim membw` (HBM streaming
// bandwidth of GPU 0 for read/write/copy/update), `t3sim p2p` (a remote write between two GPUs).
// Each parses, runs one probe of the studies library (studies/probes.h) and prints.
#include <cstdio>
#include <iostream>
#include <map>

#include "cli/common.h"
#include "models/gpu/gpu_spec.h"
#include "models/system/gemm_limits.h"
#include "sim/errors.h"
#include "sim/units_parse.h"
#include "studies/probes.h"

namespace t3sim::cli {
namespace {

constexpr uint64_t kMaxDim = uint64_t{1} << 22;  // of a `gemm` dimension

void print(bool json, const nlohmann::ordered_json& j) {
  if (json) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  for (auto it = j.begin(); it != j.end(); ++it)
    std::cout << it.key() << ": " << it.value() << "\n";
}

}  // namespace

int cmd_gemm(const Args& args, const Env& env) {
  po::options_description desc("t3sim gemm options");
  std::string sys, dtype = "fp16", held_for = "0 us", corunner;
  uint64_t m = 0, n = 0, k = 0, batch = 1;
  uint32_t held_cus = 0;
  std::vector<std::string> sets;
  desc.add_options()("system", po::value(&sys)->required(), "system name or path")(
      "m,m", integer(&m, uint64_t{1}, kMaxDim)->required(), "rows, 1..4194304")(
      "n,n", integer(&n, uint64_t{1}, kMaxDim)->required(), "columns, 1..4194304")(
      "k,k", integer(&k, uint64_t{1}, kMaxDim)->required(), "reduction dimension, 1..4194304")(
      "batch", integer(&batch, uint64_t{1}, kMaxDim)->default_value(1),
      "independent products in one kernel, 1..4194304")(
      "dtype", po::value(&dtype)->default_value("fp16"),
      "fp16 | bf16 | tf32 | fp32 (SIMT) | fp8: picks the preset's matrix rate")(
      "held-cus", integer(&held_cus, uint32_t{0}, uint32_t{4095})->default_value(0),
      "CUs another kernel holds at launch, 0..4095 (fewer than the GPU's)")(
      "held-for", po::value(&held_for)->default_value("0 us"),
      "when the held CUs come back, after the launch (\"0 us\": never)")(
      "corunner", po::value(&corunner),
      "what the kernel holding --held-cus does: spin | copy | read | ce (a copy-engine copy, "
      "no CUs); default: nothing but holding them")(
      "set", po::value(&sets)->composing(), "override: path=value")("json", po::bool_switch(),
                                                                    "print JSON");
  po::variables_map vm;
  if (!parse_options(args, desc, vm, nullptr, "t3sim gemm --system S -m M -n N -k K")) return 0;
  const std::map<std::string, gpu::Precision> precisions = {{"fp16", gpu::Precision::kFp16},
                                                            {"bf16", gpu::Precision::kBf16},
                                                            {"tf32", gpu::Precision::kTf32},
                                                            {"fp32", gpu::Precision::kFp32},
                                                            {"fp8", gpu::Precision::kFp8}};
  const auto precision = precisions.find(dtype);
  if (precision == precisions.end()) {
    throw UsageError("--dtype must be fp16, bf16, tf32, fp32 or fp8 (got '" + dtype + "')");
  }
  const ConfigDoc doc = load_system(env, sys, sets);
  if (gpu::matrix_rate(system::system_gpu_spec(doc), precision->second) == 0) {
    throw UsageError("the GPU preset of '" + sys + "' gives no flops_per_cu_cycle_" + dtype);
  }
  studies::HeldCus held;
  if (!corunner.empty()) {
    held = studies::background_kernel(system::system_gpu_spec(doc), corunner, held_cus);
  } else {
    held.cus = held_cus;
  }
  try {
    held.for_time = parse_duration(held_for);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--held-for: ") + e.what());
  }
  const studies::GemmProbe p = studies::probe_gemm(doc, {m, n, k, batch, precision->second}, held);
  nlohmann::ordered_json j;
  j["time_us"] = p.time_us;
  j["tflops"] = p.tflops;
  j["dram_bytes"] = p.dram_bytes;
  j["dram_read_bytes"] = p.dram_read_bytes;
  j["dram_write_bytes"] = p.dram_write_bytes;
  j["sm_clock_mhz"] = p.clock_mhz;
  if (p.power_w > 0) j["board_power_w"] = p.power_w;
  if (held.traffic) j["corunner_gbps"] = p.corunner_gbps;
  j["waves"] = p.waves;
  j["dram_utilisation"] = p.dram_utilisation;
  j["l2_hit_rate"] = p.l2_hit_rate;
  const double wg_us = p.compute_us + p.memory_stall_us + p.pipeline_us;
  j["wg_time_us"] = {
      {"compute", p.compute_us}, {"memory_stall", p.memory_stall_us}, {"pipeline", p.pipeline_us}};
  j["wg_time_share"] = {{"compute", wg_us > 0 ? p.compute_us / wg_us : 0.0},
                        {"memory_stall", wg_us > 0 ? p.memory_stall_us / wg_us : 0.0},
                        {"pipeline", wg_us > 0 ? p.pipeline_us / wg_us : 0.0}};
  print(vm["json"].as<bool>(), j);
  return 0;
}

namespace {

// `membw --loaded`: the loaded-latency curve of one GPU's HBM and its knee.
int print_loaded(const ConfigDoc& system, double read_share, Bytes request, bool json) {
  if (!(read_share >= 0.0 && read_share <= 1.0)) throw UsageError("--read-share must be in 0..1");
  if (request.count() == 0) throw UsageError("--request must be at least 1 B");
  hbm::LoadedLatencySpec spec;
  spec.request = request;
  spec.read_share = read_share;
  const hbm::LoadedLatencyCurve c = studies::probe_loaded_latency(system, spec);
  nlohmann::ordered_json j;
  j["peak_gbps"] = c.peak_gbps;
  j["unloaded_ns"] = c.unloaded_ns;
  j["points"] = nlohmann::ordered_json::array();
  for (const auto& p : c.points) {
    j["points"].push_back({{"load", p.load},
                           {"offered_gbps", p.offered_gbps},
                           {"achieved_gbps", p.achieved_gbps},
                           {"mean_ns", p.mean_ns},
                           {"p99_ns", p.p99_ns}});
  }
  j["knee_load"] = c.knee ? nlohmann::ordered_json(c.points[*c.knee].load) : nullptr;
  if (json) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("# peak %.1f GB/s, unloaded latency %.1f ns\n", c.peak_gbps, c.unloaded_ns);
  std::printf("%8s %14s %15s %10s %10s\n", "load", "offered GB/s", "achieved GB/s", "mean ns",
              "p99 ns");
  for (const auto& p : c.points) {
    std::printf("%7.0f%% %14.1f %15.1f %10.1f %10.1f\n", p.load * 100, p.offered_gbps,
                p.achieved_gbps, p.mean_ns, p.p99_ns);
  }
  if (c.knee) {
    std::printf("knee: %.0f %% of peak (mean latency first above 2x unloaded)\n",
                c.points[*c.knee].load * 100);
  } else {
    std::printf("knee: none up to 100 %% of peak\n");
  }
  return 0;
}

}  // namespace

int cmd_membw(const Args& args, const Env& env) {
  po::options_description desc("t3sim membw options");
  std::string sys, pattern = "read", size = "1 GiB";
  std::vector<std::string> sets;
  desc.add_options()("system", po::value(&sys)->required(), "system name or path")(
      "pattern", po::value(&pattern)->default_value("read"), "read | write | copy | update")(
      "bytes", po::value(&size)->default_value("1 GiB"), "bytes per stream, e.g. \"256 MiB\"")(
      "set", po::value(&sets)->composing(), "override: path=value")("json", po::bool_switch(),
                                                                    "print JSON")(
      "loaded", po::bool_switch(),
      "print the loaded-latency curve instead: latency vs offered load, 5..100 % of peak")(
      "read-share", po::value<double>()->default_value(1.0),
      "--loaded: share of READs in the stream (the rest are WRITEs)")(
      "request", po::value<std::string>()->default_value("4 KiB"),
      "--loaded: request size, at most the HBM interleave");
  po::variables_map vm;
  if (!parse_options(args, desc, vm, nullptr, "t3sim membw --system S --pattern P")) return 0;
  if (vm["loaded"].as<bool>()) {
    return print_loaded(load_system(env, sys, sets), vm["read-share"].as<double>(),
                        parse_bytes(vm["request"].as<std::string>()), vm["json"].as<bool>());
  }
  const Bytes bytes = parse_bytes(size);
  if (bytes.count() == 0 || bytes > Bytes::gib(64))
    throw UsageError("--bytes must be in 1 B..64 GiB");
  const auto found = studies::hbm_pattern_commands(pattern);
  if (!found || pattern == "rmw") throw UsageError("--pattern must be read, write, copy or update");
  const std::vector<common::MemCmd>& cmds = *found;
  const Duration t = studies::probe_hbm_streams(load_system(env, sys, sets), cmds, bytes.count());
  nlohmann::ordered_json j;
  j["pattern"] = pattern;
  j["bytes"] = bytes.count() * cmds.size();
  j["time_us"] = t.to_us();
  j["bandwidth_gbps"] = static_cast<double>(bytes.count() * cmds.size()) / t.to_s() / 1e9;
  print(vm["json"].as<bool>(), j);
  return 0;
}

int cmd_p2p(const Args& args, const Env& env) {
  po::options_description desc("t3sim p2p options");
  std::string sys, size = "64 MiB";
  int src = 0, dst = 1;
  std::vector<std::string> sets;
  desc.add_options()("system", po::value(&sys)->required(), "system name or path")(
      "src", integer(&src, 0, 4095)->default_value(0), "source GPU")(
      "dst", integer(&dst, 0, 4095)->default_value(1), "destination GPU")(
      "bytes", po::value(&size)->default_value("64 MiB"), "bytes to move")(
      "set", po::value(&sets)->composing(), "override: path=value")("json", po::bool_switch(),
                                                                    "print JSON");
  po::variables_map vm;
  if (!parse_options(args, desc, vm, nullptr,
                     "t3sim p2p --system S --src a --dst b --bytes SIZE")) {
    return 0;
  }
  const Bytes bytes = parse_bytes(size);
  if (bytes.count() == 0 || bytes > Bytes::gib(64))
    throw UsageError("--bytes must be in 1 B..64 GiB");
  const studies::P2pProbe p =
      studies::probe_p2p(load_system(env, sys, sets), src, dst, bytes.count());
  nlohmann::ordered_json j;
  j["bytes"] = bytes.count();
  j["time_us"] = p.time.to_us();
  j["bandwidth_gbps"] = static_cast<double>(bytes.count()) / p.time.to_s() / 1e9;
  j["hops"] = p.hops;
  print(vm["json"].as<bool>(), j);
  return 0;
}

}  // namespace t3sim::cli
