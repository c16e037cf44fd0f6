// `t3sim replay FILE --system S --mode MODE`: a workload trace run through the models, honouring
// its streams and dependencies (models/system/replay.h); prints each op's start and duration and
// the total, as a table or as JSON.
#include <cstdio>
#include <iostream>

#include "cli/common.h"
#include "cli/progress.h"
#include "cli/trace_options.h"
#include "models/system/replay.h"
#include "models/system/replay_timeline.h"
#include "sim/atomic_file.h"
#include "sim/errors.h"

namespace t3sim::cli {
namespace {

void print_table(const system::ReplayResult& r, const std::string& file) {
  std::printf("%s on %s (%d GPUs), mode %s\n", file.c_str(), r.system.c_str(), r.gpus,
              std::string(system::to_string(r.mode)).c_str());
  std::printf("%-28s %-14s %6s %12s %12s  %s\n", "op", "kind", "stream", "start_us", "duration_us",
              "model");
  for (const auto& op : r.ops) {
    std::string note = op.model;
    if (!op.fused_with.empty()) {
      note += op.kind == workload::OpKind::kGemm ? " (gemm part, with " : " (exposed comm, with ";
      note += op.fused_with + ")";
    }
    if (op.measured_us) {
      char measured[48];
      std::snprintf(measured, sizeof measured, " [measured %.1f us]", *op.measured_us);
      note += measured;
    }
    std::printf("%-28s %-14s %6d %12.1f %12.1f  %s\n", op.id.c_str(),
                std::string(workload::to_string(op.kind)).c_str(), op.stream, op.start_us,
                op.duration_us, note.c_str());
  }
  std::printf(
      "total %.1f us (idle kept from the trace: %.1f us) | %llu simulations, %llu "
      "memoised | %.2f s\n",
      r.total_us, r.idle_us, static_cast<unsigned long long>(r.simulations),
      static_cast<unsigned long long>(r.memo_hits), r.wall_s);
  std::printf("communication: %.1f us while any of %llu ops runs\n", r.comm_us,
              static_cast<unsigned long long>(r.comm_ops));
  if (r.unsimulated_comm_ops > 0) {
    std::printf("communication not simulated: %llu ops, %.1f us\n",
                static_cast<unsigned long long>(r.unsimulated_comm_ops), r.unsimulated_comm_us);
  }
}

}  // namespace

int cmd_replay(const Args& args, const Env& env) {
  po::options_description desc("t3sim replay options");
  std::string file, sys, mode_name;
  std::vector<std::string> sets;
  system::ReplayOptions options;
  TraceCli timeline;
  desc.add_options()("trace", po::value(&file)->required(),
                     "the workload trace to replay (traces/README.md; also the first argument)")(
      "system", po::value(&sys)->required(), "system name or config path")(
      "mode", po::value(&mode_name)->required(),
      "how GEMM + all-reduce pairs run: sequential | ideal | ideal-nmc | t3 | t3-mca | cu-split | "
      "decomposed | t3-direct")("ar-cus", integer(&options.ar_cus, 1u, 4096u)->default_value(16),
                                "cu-split: CUs for the all-reduce")(
      "chunks", integer(&options.decompose_chunks, 1u, 4096u)->default_value(4),
      "decomposed: GEMM chunks")("strict", po::bool_switch(&options.strict),
                                 "a communication op that cannot be simulated is an error")(
      "set", po::value(&sets)->composing(), "override a config value: path=value (repeatable)")(
      "json", po::bool_switch(), "print JSON")("quiet,q", po::bool_switch(),
                                               "no progress line (it is shown only on a terminal)");
  timeline.add(desc);
  po::positional_options_description positional;
  positional.add("trace", 1);
  po::variables_map vm;
  if (!parse_options(
          args, desc, vm, &positional,
          "t3sim replay TRACE.json --system S --mode MODE [--json] [--strict] [--set path=value] "
          "[--trace-out TIMELINE.json]")) {
    return 0;
  }
  const auto mode = system::parse_mode(mode_name);
  if (!mode) throw UsageError("unknown --mode '" + mode_name + "'");
  options.mode = *mode;
  TimelineOptions timeline_options;
  const std::string timeline_path = timeline.resolve(timeline_options);
  const workload::Trace trace = workload::read_trace(file);
  const ConfigDoc doc = load_system(env, sys, sets);
  std::vector<InputFile> inputs{{file, "the trace to replay"}};
  add_config_files(inputs, doc, "a file of --system");
  refuse_input_output(timeline.flag(), timeline_path, inputs);
  ProgressLine line("replay", "ops", progress_shown(env.stderr_is_tty, vm["quiet"].as<bool>()));
  options.progress = [&line](size_t done, size_t total) { line.update(done, total); };
  const system::ReplayResult r = system::replay_trace(doc, trace, file, options);
  for (const std::string& w : r.warnings) std::cerr << "warning: " << file << ": " << w << "\n";
  if (!timeline_path.empty()) {
    Timeline tl(timeline_options);
    system::record_replay(tl, r);
    write_file_atomic(timeline_path, tl.json());
  }
  if (vm["json"].as<bool>()) {
    std::cout << system::to_json(r).dump(2) << "\n";
  } else {
    print_table(r, file);
  }
  return 0;
}

}  // namespace t3sim::cli
