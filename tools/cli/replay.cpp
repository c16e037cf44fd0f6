// `t3sim replay FILE --system S --mode MODE`: a workload trace run through the models, honouring
// its streams and dependencies (models/system/replay.h); prints each op's start and duration and
// the total, as a table or as JSON.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/common.h"
#include "cli/progress.h"
#include "cli/replay_inputs.h"
#include "cli/trace_options.h"
#include "models/system/replay.h"
#include "models/system/replay_ranks.h"
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

void print_ranks(const system::MultiRankReplay& m) {
  std::printf("%zu ranks on %s (%d GPUs, rank r on GPU r), mode %s\n", m.ranks.size(),
              m.system.c_str(), m.gpus, std::string(system::to_string(m.mode)).c_str());
  std::printf("%-6s %12s %12s %12s %12s %16s %8s\n", "rank", "total_us", "compute_us", "comm_us",
              "wait_us", "exposed_comm_us", "ops");
  for (size_t r = 0; r < m.ranks.size(); ++r) {
    const system::RankReplay& k = m.ranks[r];
    std::printf("%-6zu %12.1f %12.1f %12.1f %12.1f %16.1f %8zu\n", r, k.result.total_us,
                k.compute_us, k.result.comm_us, k.wait_us, k.exposed_comm_us, k.result.ops.size());
  }
  std::printf(
      "total %.1f us (slowest: rank %d) | %llu collectives matched across the ranks, "
      "%llu send/recv pairs matched, %llu unmatched | %llu simulations, %llu memoised | "
      "%.2f s\n",
      m.total_us, m.slowest_rank, static_cast<unsigned long long>(m.collectives),
      static_cast<unsigned long long>(m.matched_p2p),
      static_cast<unsigned long long>(m.unmatched_p2p),
      static_cast<unsigned long long>(m.simulations), static_cast<unsigned long long>(m.memo_hits),
      m.wall_s);
  uint64_t unsimulated = 0;
  double unsimulated_us = 0;
  for (const auto& k : m.ranks) {
    unsimulated += k.result.unsimulated_comm_ops;
    unsimulated_us += k.result.unsimulated_comm_us;
  }
  if (unsimulated > 0) {
    std::printf("communication not simulated: %llu ops, %.1f us\n",
                static_cast<unsigned long long>(unsimulated), unsimulated_us);
  }
}

void print_warnings(const std::vector<std::string>& lines) {
  for (const std::string& line : lines) std::cerr << line << "\n";
}

// Several rank traces: one run across the ranks (models/system/replay_ranks.h).
int replay_ranks(const Env& env, RankInputs in, const std::string& sys,
                 const std::vector<std::string>& sets, const system::ReplayOptions& options,
                 const std::string& timeline_path, const TimelineOptions& timeline_options,
                 bool json) {
  const ConfigDoc doc = load_system(env, sys, sets);
  std::vector<InputFile> inputs;
  for (const auto& f : in.files) inputs.push_back({f, "a rank trace to replay"});
  add_config_files(inputs, doc, "a file of --system");
  refuse_input_output("--trace-out", timeline_path, inputs);
  for (const auto& lines : in.warnings) print_warnings(lines);
  const system::MultiRankReplay m = system::replay_ranks(doc, in.traces, in.files, options);
  for (const std::string& w : m.warnings) std::cerr << "warning: " << w << "\n";
  if (!timeline_path.empty()) {
    Timeline tl(timeline_options);
    system::record_replay(tl, m);
    write_file_atomic(timeline_path, tl.json());
    note_trace_dropped("replay", timeline_path, tl.dropped(), timeline_options.max_events);
  }
  if (json) {
    std::cout << system::to_json(m).dump(2) << "\n";
  } else {
    print_ranks(m);
  }
  return 0;
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
      ("how GEMM + all-reduce pairs run: " + system::mode_list(" | ") +
       " (`t3sim modes` explains each)")
          .c_str())("ar-cus", integer(&options.ar_cus, 1u, 4096u)->default_value(16),
                    "cu-split: CUs for the all-reduce")(
      "chunks", integer(&options.decompose_chunks, 1u, 4096u)->default_value(4),
      "decomposed: GEMM chunks")("strict", po::bool_switch(&options.strict),
                                 "a communication op that cannot be simulated is an error")(
      "set", po::value(&sets)->composing(), "override a config value: path=value (repeatable)")(
      "json", po::bool_switch(), "print JSON")("quiet,q", po::bool_switch(),
                                               "no progress line (it is shown only on a terminal)");
  timeline.add(desc);
  std::vector<std::string> rank_files;
  int rank = -1;
  desc.add_options()("rank-trace", po::value(&rank_files)->composing(),
                     "the traces of ranks 1, 2, ... (after the first argument, rank 0's): one run "
                     "across the ranks, rank r on GPU r; PyTorch (Kineto) profiles of the ranks "
                     "are imported as they are read, each collective on its process group's "
                     "GPUs and each send/recv matched with its peer's")(
      "kineto", po::bool_switch(),
      "the rank files are PyTorch profiles, whatever their names (a .pt.trace.json[.gz] name or "
      "\"traceEvents\" in a plain file says so anyway)")(
      "rank", integer(&rank, 0, 1 << 20),
      "replay only this rank's trace (its recorded rank: a profile's distributedInfo.rank, a "
      "trace's metadata.rank; else its place in the list), as every rank's program (default: "
      "every rank, each on its GPU)");
  po::positional_options_description positional;
  positional.add("trace", 1);
  positional.add("rank-trace", -1);
  po::variables_map vm;
  if (!parse_options(
          args, desc, vm, &positional,
          "t3sim replay TRACE.json [RANK1.json ...] --system S --mode MODE [--rank R] [--json] "
          "[--strict] [--set path=value] [--trace-out TIMELINE.json]")) {
    return 0;
  }
  const auto mode = system::parse_mode(mode_name);
  if (!mode) {
    throw UsageError("unknown --mode '" + mode_name + "' (one of: " + system::mode_list(", ") +
                     ")");
  }
  options.mode = *mode;
  TimelineOptions timeline_options;
  const std::string timeline_path = timeline.resolve(timeline_options);
  rank_files.insert(rank_files.begin(), file);
  RankInputs in = load_rank_inputs(rank_files, vm["kineto"].as<bool>(), options.strict);
  if (in.files.size() > 1 && !vm.count("rank")) {
    return replay_ranks(env, std::move(in), sys, sets, options, timeline_path, timeline_options,
                        vm["json"].as<bool>());
  }
  const size_t chosen = vm.count("rank") ? pick_rank(in, rank) : 0;
  file = in.files[chosen];
  const workload::Trace trace = std::move(in.traces[chosen]);
  print_warnings(in.warnings[chosen]);
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
    note_trace_dropped("replay", timeline_path, tl.dropped(), timeline_options.max_events);
  }
  if (vm["json"].as<bool>()) {
    std::cout << system::to_json(r).dump(2) << "\n";
  } else {
    print_table(r, file);
  }
  return 0;
}

}  // namespace t3sim::cli
