// Microbenchmarks on one system: `t3sim gemm` (one GEMM on GPU 0), `t3sim membw` (HBM streaming
// bandwidth of GPU 0 for read/write/copy/update), `t3sim p2p` (a remote write between two GPUs).
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "cli/validation_sets.h"
#include "models/system/scenario.h"
#include "sim/errors.h"
#include "sim/units_parse.h"

namespace t3sim::cli {
namespace {

void print(bool json, const nlohmann::ordered_json& j) {
  if (json) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  for (auto it = j.begin(); it != j.end(); ++it)
    std::cout << it.key() << ": " << it.value() << "\n";
}

class Counter : public gpu::AccessDone {
 public:
  void access_done(uint64_t) override {
    ++done;
    last = now_fn();
  }
  std::function<Tick()> now_fn;
  uint64_t done = 0;
  Tick last{};
};

}  // namespace

int cmd_gemm(const Args& args, const Env& env) {
  po::options_description desc("t3sim gemm options");
  std::string sys, dtype = "fp16";
  uint64_t m = 0, n = 0, k = 0;
  std::vector<std::string> sets;
  desc.add_options()("system", po::value(&sys)->required(), "system name or path")(
      "m,m", po::value(&m)->required(), "rows")("n,n", po::value(&n)->required(), "columns")(
      "k,k", po::value(&k)->required(), "reduction dimension")(
      "dtype", po::value(&dtype)->default_value("fp16"), "fp16 | bf16")(
      "set", po::value(&sets)->composing(), "override: path=value")("json", po::bool_switch(),
                                                                    "print JSON");
  po::variables_map vm;
  if (!parse_options(args, desc, vm, nullptr, "t3sim gemm --system S -m M -n N -k K")) return 0;
  if (dtype != "fp16" && dtype != "bf16") throw UsageError("--dtype must be fp16 or bf16");
  const uint64_t limit = uint64_t{1} << 22;
  if (m == 0 || n == 0 || k == 0 || m > limit || n > limit || k > limit) {
    throw UsageError("-m, -n, -k must be in 1.." + std::to_string(limit));
  }
  const ConfigDoc doc = load_system(env, sys, sets);
  system::Scenario sc(doc, 1, nullptr);
  const gpu::GemmShape shape{m, n, k};
  sc.allocate(shape, 2);
  auto& kern = sc.launch_local_gemm(0, shape, 2, sc.spec().cus, nullptr);
  sc.run();
  const double t_us = (kern.done() - kern.start()).to_us();
  const uint32_t tiles = static_cast<uint32_t>(((m + sc.spec().tile_m - 1) / sc.spec().tile_m) *
                                               ((n + sc.spec().tile_n - 1) / sc.spec().tile_n));
  nlohmann::ordered_json j;
  j["time_us"] = t_us;
  j["tflops"] =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / (t_us * 1e6);
  j["dram_bytes"] = sc.dram_total();
  j["waves"] =
      (tiles + sc.spec().cus * sc.spec().wgs_per_cu - 1) / (sc.spec().cus * sc.spec().wgs_per_cu);
  print(vm["json"].as<bool>(), j);
  return 0;
}

int cmd_membw(const Args& args, const Env& env) {
  po::options_description desc("t3sim membw options");
  std::string sys, pattern = "read", size = "1 GiB";
  std::vector<std::string> sets;
  desc.add_options()("system", po::value(&sys)->required(), "system name or path")(
      "pattern", po::value(&pattern)->default_value("read"), "read | write | copy | update")(
      "bytes", po::value(&size)->default_value("1 GiB"), "bytes per stream, e.g. \"256 MiB\"")(
      "set", po::value(&sets)->composing(), "override: path=value")("json", po::bool_switch(),
                                                                    "print JSON");
  po::variables_map vm;
  if (!parse_options(args, desc, vm, nullptr, "t3sim membw --system S --pattern P")) return 0;
  const Bytes bytes = parse_bytes(size);
  if (bytes.count() == 0 || bytes > Bytes::gib(64))
    throw UsageError("--bytes must be in 1 B..64 GiB");
  using common::MemCmd;
  std::vector<MemCmd> cmds;
  if (pattern == "read")
    cmds = {MemCmd::kRead};
  else if (pattern == "write")
    cmds = {MemCmd::kWrite};
  else if (pattern == "copy")
    cmds = {MemCmd::kRead, MemCmd::kWrite};
  else if (pattern == "update")
    cmds = {MemCmd::kUpdate};
  else
    throw UsageError("--pattern must be read, write, copy or update");
  const Duration t = validation::sim_hbm_streams(load_system(env, sys, sets), cmds, bytes.count());
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
      "src", po::value(&src)->default_value(0), "source GPU")(
      "dst", po::value(&dst)->default_value(1), "destination GPU")(
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
  const ConfigDoc doc = load_system(env, sys, sets);
  system::Scenario sc(doc, 1, nullptr);
  if (src < 0 || dst < 0 || src >= sc.gpus() || dst >= sc.gpus() || src == dst) {
    throw UsageError("--src and --dst must be different GPUs in 0.." +
                     std::to_string(sc.gpus() - 1));
  }
  Counter counter;
  counter.now_fn = [&sc] { return sc.sim().now(); };
  // The transfer is split evenly over the source GPU's DMA engines (as a copy runtime would).
  const auto& s_node = sc.machine().gpus[static_cast<size_t>(src)];
  const uint64_t src_base = s_node.alloc->allocate(bytes.count());
  const uint64_t dst_base =
      sc.machine().gpus[static_cast<size_t>(dst)].alloc->allocate(bytes.count());
  const uint64_t engines = sc.spec().dma.engines;
  const uint64_t per = (bytes.count() + engines - 1) / engines;
  for (uint64_t off = 0; off < bytes.count(); off += per) {
    gpu::DmaDescriptor d;
    d.src_addr = src_base + off;
    d.dst_gpu = dst;
    d.dst_addr = dst_base + off;
    d.bytes = std::min(per, bytes.count() - off);
    d.done = &counter;
    s_node.dma->submit(d);
  }
  sc.run();
  const Duration t = counter.last - Tick{};
  nlohmann::ordered_json j;
  j["bytes"] = bytes.count();
  j["time_us"] = t.to_us();
  j["bandwidth_gbps"] = static_cast<double>(bytes.count()) / t.to_s() / 1e9;
  j["hops"] = sc.machine().fabric->hops(src, dst);
  print(vm["json"].as<bool>(), j);
  return 0;
}

}  // namespace t3sim::cli
