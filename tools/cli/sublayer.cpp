// `t3sim sublayer`: one TP sublayer (GEMM + all-reduce) under one execution mode; text or JSON.
#include <cstdio>
#include <iostream>

#include "cli/common.h"
#include "cli/trace_options.h"
#include "models/system/system.h"
#include "sim/atomic_file.h"
#include "sim/errors.h"

namespace t3sim::cli {

namespace {

std::string folded_note(const system::SublayerResult& r) {
  if (!r.folded) return "";
  if (r.simulated_gpus <= 1) return " (folded: GPU 0 simulated)";
  return " (folded: node 0's GPUs 0-" + std::to_string(r.simulated_gpus - 1) + " simulated)";
}

void print_text(const std::string& what, int gpus, const SublayerChoice& c,
                const std::string& mode_name, const system::SublayerResult& r) {
  std::printf("%s tp=%d tokens=%lld GEMM %llux%llux%llu mode=%s\n", what.c_str(), gpus,
              static_cast<long long>(c.tokens), static_cast<unsigned long long>(c.spec.shape.m),
              static_cast<unsigned long long>(c.spec.shape.n),
              static_cast<unsigned long long>(c.spec.shape.k), mode_name.c_str());
  std::printf("  total %.1f us | gemm %.1f us | rs %.1f us (exposed %.1f) | ag %.1f us\n",
              r.total_us, r.gemm_us, r.rs_us, r.rs_exposed_us, r.ag_us);
  std::printf("  DRAM %.1f MB:", static_cast<double>(r.dram_total) / 1e6);
  for (size_t i = 0; i < r.dram_bytes.size(); ++i) {
    if (r.dram_bytes[i] == 0) continue;
    std::printf(" %s %.1f",
                std::string(common::to_string(static_cast<common::TrafficClass>(i))).c_str(),
                static_cast<double>(r.dram_bytes[i]) / 1e6);
  }
  std::printf(
      "\n  links %.1f MB | tracker triggers %llu max_occ %u stalls %llu | %llu events, %.3f s%s\n",
      static_cast<double>(r.link_bytes) / 1e6, static_cast<unsigned long long>(r.tracker_triggers),
      r.tracker_max_occupancy, static_cast<unsigned long long>(r.tracker_stalls),
      static_cast<unsigned long long>(r.events), r.wall_s, folded_note(r).c_str());
}

// One line per execution mode, from the mode table.
std::string mode_help() {
  std::string h = "execution mode (`t3sim modes` explains each and what it bounds):";
  for (const auto& m : system::mode_table()) {
    h += "\n  " + std::string(m.name) + ": " + std::string(m.description);
  }
  return h;
}

}  // namespace

int cmd_sublayer(const Args& args, const Env& env) {
  po::options_description desc("t3sim sublayer options");
  std::string sys, model, sublayer, mode_name;
  TraceCli trace;
  int tp = 0;
  int64_t tokens = 0;
  uint32_t ar_cus = 16, chunks = 4;
  std::vector<std::string> sets;
  desc.add_options()("system", po::value(&sys)->required(), "system name or config path")(
      "model", po::value(&model)->required(), "model name (configs/models/)")(
      "tp", integer(&tp, 0, 4096)->default_value(0),
      "TP degree, 1..4096 (default 0: the system's GPU count)")(
      "sublayer", po::value(&sublayer)->required(), "op | fc2 | fc1 | ip")(
      "mode", po::value(&mode_name)->required(), mode_help().c_str())(
      "tokens", integer(&tokens, int64_t{0}, int64_t{1} << 24)->default_value(0),
      "tokens T, 1..16777216 (default 0: seq_len x micro_batch)")(
      "ar-cus", integer(&ar_cus, 1u, 4096u)->default_value(16), "cu-split: CUs for the all-reduce")(
      "chunks", integer(&chunks, 1u, 4096u)->default_value(4), "decomposed: GEMM chunks")(
      "set", po::value(&sets)->composing(), "override a config value: path=value (repeatable)")(
      "json", po::bool_switch(), "print JSON")(
      "sequence-parallel", po::bool_switch(),
      "Megatron sequence parallelism: the GEMM's output is reduce-scattered and the all-gather "
      "belongs to the next sublayer; the total ends with the reduce-scatter")(
      "full", po::bool_switch(),
      "simulate every GPU even when the run is rotation-symmetric (default: GPU 0 alone, "
      "models/common/mirror.h)");
  trace.add(desc, true);
  po::variables_map vm;
  if (!parse_options(args, desc, vm, nullptr,
                     "t3sim sublayer --system S --model M --sublayer op|fc2|fc1|ip --mode MODE")) {
    return 0;
  }
  const auto mode = system::parse_mode(mode_name);
  if (!mode) {
    throw UsageError("unknown --mode '" + mode_name + "' (one of: " + system::mode_list(", ") +
                     ")");
  }
  system::RunOptions opts;
  opts.trace_path = trace.resolve(opts.trace_options);
  check_traceable(opts.trace_path, *mode);
  const ConfigDoc doc = load_system(env, sys, sets, tp);
  std::vector<InputFile> inputs{model_file(env, model)};
  add_config_files(inputs, doc, "a file of --system");
  refuse_input_output(trace.flag(), opts.trace_path, inputs);
  const int gpus = system::system_gpus(doc);
  SublayerChoice c = choose_sublayer(env, model, gpus, sublayer, tokens);
  c.spec.ar_cus = ar_cus;
  c.spec.decompose_chunks = chunks;
  c.spec.fold = !vm["full"].as<bool>();
  // Sublayers run rings, which fold by whole nodes: only the placement can be in the way.
  opts.before_full = [&](const std::string& why) {
    note_full_run("sublayer", doc, gpus, why, /*hierarchical=*/true);
  };
  system::SublayerResult r = system::run_sublayer(doc, c.spec, *mode, opts);
  trace.note_deprecated();
  note_trace_dropped("sublayer", opts.trace_path, r.trace_events_dropped,
                     opts.trace_options.max_events);
  const bool sequence_parallel = vm["sequence-parallel"].as<bool>();
  if (sequence_parallel) {  // every mode runs the all-gather after the reduce-scatter has ended
    r.total_us -= r.ag_us;
    r.ag_us = 0;
  }
  auto j = system::to_json(r);
  if (vm["json"].as<bool>()) {
    nlohmann::ordered_json out;
    out["system"] = system::system_name(doc);
    out["model"] = model;
    out["tp"] = gpus;
    out["sublayer"] = sublayer;
    out["tokens"] = c.tokens;
    out["sequence_parallel"] = sequence_parallel;
    out["gemm"] = {{"m", c.spec.shape.m}, {"n", c.spec.shape.n}, {"k", c.spec.shape.k}};
    out.update(j);
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  print_text(model + " " + sublayer, gpus, c, mode_name, r);
  return 0;
}

}  // namespace t3sim::cli
