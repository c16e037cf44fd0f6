// `t3sim trace gen`: one transformer layer of a model zoo entry as a trace (layer_generator.h);
// `t3sim trace import-kineto`: a PyTorch profiler trace converted to a t3sim trace, with the import
// summary (share of GPU time simulated, by category; idle time) on stdout and one grouped warning
// per kind of op that stayed fixed on stderr (--strict: exit 2 instead). The output is written
// atomically, so bad input (a ConfigError, exit 2) never leaves a partial file behind.
// `t3sim trace import-chakra`: a Chakra execution trace (one file per rank, or their prefix)
// converted the same way, with its summary and warnings (chakra_import.h).
#include <iostream>

#include "cli/common.h"
#include "models/workload/chakra_import.h"
#include "models/workload/kineto_import.h"
#include "models/workload/layer_generator.h"
#include "sim/atomic_file.h"
#include "sim/errors.h"
#include "sim/strict_json.h"

namespace t3sim::cli {
namespace {

constexpr const char* kUsage =
    "t3sim trace gen --model M --tp N [--tokens T] [--pass fwd|bwd|both] [--sequence-parallel] "
    "-o FILE\n       t3sim trace import-kineto PROFILE.json -o FILE [--strict] [--drop-idle] "
    "[--summary-json F]\n       t3sim trace import-chakra PREFIX|FILE... -o FILE [--strict] "
    "[--dtype D] [--rank R] [--ranks N] [--per-rank] [--summary-json F]";

int trace_gen(const Args& args, const Env& env) {
  po::options_description desc("t3sim trace gen options");
  std::string model, pass, out;
  int tp = 0;
  int64_t tokens = 0;
  desc.add_options()("model", po::value(&model)->required(), "model name (configs/models/)")(
      "tp", integer(&tp, 1, 4096)->required(), "TP degree, 1..4096")(
      "tokens", integer(&tokens, int64_t{0}, int64_t{1} << 24)->default_value(0),
      "tokens T, 1..16777216 (default 0: seq_len x micro_batch)")(
      "pass", po::value(&pass)->default_value("both"), "fwd | bwd | both")(
      "sequence-parallel", po::bool_switch(), "reduce-scatter + all-gather instead of all-reduce")(
      "output,o", po::value(&out)->required(), "trace file to write");
  po::variables_map vm;
  if (!parse_options(args, desc, vm, nullptr, kUsage)) return 0;
  const auto passes = workload::parse_pass_selection(pass);
  if (!passes) throw UsageError("--pass must be fwd, bwd or both (got '" + pass + "')");
  refuse_input_output("--output", out, {model_file(env, model)});
  output_target(out);  // a FIFO, device or folder is refused before any work
  workload::LayerOptions options;
  options.tp = tp;
  options.tokens = tokens;
  options.passes = *passes;
  options.sequence_parallel = vm["sequence-parallel"].as<bool>();
  const auto spec = workload::load_model_by_name(model, env.configs_dir / "models");
  const workload::Trace trace = workload::generate_layer(spec, options);
  workload::write_trace(trace, out);
  std::cout << "wrote " << out << ": " << trace.ops.size() << " ops (" << model << ", tp " << tp
            << ")\n";
  return 0;
}

int trace_import_kineto(const Args& args) {
  po::options_description desc("t3sim trace import-kineto options");
  std::string in, out, summary_out;
  bool no_infer = false, strict = false, drop_idle = false;
  desc.add_options()("profile", po::value(&in)->required(), "PyTorch profiler (Kineto) JSON")(
      "output,o", po::value(&out)->required(), "trace file to write")(
      "no-cross-stream-deps", po::bool_switch(&no_infer),
      "do not infer cross-stream waits from timestamps")(
      "strict", po::bool_switch(&strict),
      "fail (exit 2) on an op that cannot be modelled instead of keeping it fixed with a warning")(
      "drop-idle", po::bool_switch(&drop_idle),
      "drop the idle time between kernels (replay then packs them; the summary says how much)")(
      "summary-json", po::value(&summary_out), "also write the import summary as JSON");
  po::positional_options_description positional;
  positional.add("profile", 1);
  po::variables_map vm;
  if (!parse_options(args, desc, vm, &positional, kUsage)) return 0;
  refuse_input_output("--output", out, {{in, "the Kineto profile"}});
  refuse_input_output("--summary-json", summary_out, {{in, "the Kineto profile"}});
  refuse_same_outputs("--output", out, "--summary-json", summary_out);
  output_target(out);
  if (!summary_out.empty()) output_target(summary_out);
  workload::KinetoImportOptions options;
  options.infer_cross_stream_deps = !no_infer;
  options.strict = strict;
  options.keep_idle = !drop_idle;
  const workload::KinetoImport imported = workload::import_kineto_file(in, options);
  workload::write_trace(imported.trace, out);
  if (!summary_out.empty()) {
    write_file_atomic(summary_out, workload::to_json(imported.summary).dump(2) + "\n");
  }
  for (const std::string& line : workload::format_warnings(imported.summary, in)) {
    std::cerr << line << "\n";
  }
  std::cout << "wrote " << out << ": " << imported.trace.ops.size() << " ops imported from " << in
            << "\n"
            << workload::format_summary(imported.summary) << "\n";
  return 0;
}

// OUT.json -> OUT.<rank>.json.
std::filesystem::path rank_output(const std::filesystem::path& out, std::size_t rank) {
  std::filesystem::path p = out;
  const std::string ext = p.has_extension() ? p.extension().string() : ".json";
  return p.replace_extension("." + std::to_string(rank) + ext);
}

// --per-rank: every rank's program imported before any file is written (no partial output).
int write_per_rank(const std::vector<std::filesystem::path>& files,
                   workload::ChakraImportOptions options, const std::string& out) {
  std::vector<InputFile> read;
  for (const auto& f : files) read.push_back({f, "a Chakra rank file"});
  std::vector<workload::ChakraImport> imported;
  for (std::size_t r = 0; r < files.size(); ++r) {
    const std::filesystem::path target = rank_output(out, r);
    refuse_input_output("--output", target.string(), read);
    output_target(target.string());
    options.rank = static_cast<int>(r);
    options.compare_ranks = false;
    imported.push_back(workload::import_chakra(files, options));
  }
  std::size_t ops = 0;
  for (std::size_t r = 0; r < imported.size(); ++r) {
    workload::write_trace(imported[r].trace, rank_output(out, r));
    ops += imported[r].trace.ops.size();
    for (const std::string& line :
         workload::format_warnings(imported[r].summary, imported[r].summary.imported_file)) {
      std::cerr << line << "\n";
    }
  }
  std::cout << "wrote " << imported.size() << " rank traces " << rank_output(out, 0).string()
            << " ... " << rank_output(out, imported.size() - 1).string() << ": " << ops << " ops\n";
  return 0;
}

int trace_import_chakra(const Args& args) {
  po::options_description desc("t3sim trace import-chakra options");
  std::vector<std::string> inputs;
  std::string out, summary_out, dtype_name;
  bool strict = false;
  int rank = -1, group = 0;
  desc.add_options()("et", po::value(&inputs)->composing()->required(),
                     "Chakra ET files, one per rank, or their prefix P (P.0.et, P.1.et, ...)")(
      "output,o", po::value(&out)->required(), "trace file to write")(
      "strict", po::bool_switch(&strict),
      "fail (exit 2) on a node that cannot be modelled instead of keeping it fixed with a warning")(
      "dtype", po::value(&dtype_name)->default_value("fp32"),
      "element type of the collectives (Chakra records none; nccl-tests' default is float)")(
      "rank", integer(&rank, 0, 1 << 20),
      "import this rank's program even when the ranks' programs differ")(
      "ranks", integer(&group, 1, 1 << 20),
      "ranks in the group when fewer rank files are given (e.g. rank 0's file alone)")(
      "summary-json", po::value(&summary_out), "also write the import summary as JSON");
  desc.add_options()("per-rank", po::bool_switch(),
                     "write each rank's program to its own trace, OUT.<r>.json for -o OUT.json "
                     "(for `t3sim replay OUT.0.json OUT.1.json ...`: one run across the ranks)");
  po::positional_options_description positional;
  positional.add("et", -1);
  po::variables_map vm;
  if (!parse_options(args, desc, vm, &positional, kUsage)) return 0;
  const std::optional<workload::Dtype> dtype = workload::parse_dtype(dtype_name);
  if (!dtype) {
    throw UsageError("--dtype: '" + dtype_name + "' is not one of " +
                     join(workload::dtype_names(), ", "));
  }
  const auto files = workload::chakra_rank_files(inputs);
  std::vector<InputFile> read;
  for (const auto& f : files) read.push_back({f, "a Chakra rank file"});
  refuse_input_output("--output", out, read);
  refuse_input_output("--summary-json", summary_out, read);
  refuse_same_outputs("--output", out, "--summary-json", summary_out);
  output_target(out);
  if (!summary_out.empty()) output_target(summary_out);
  workload::ChakraImportOptions options;
  options.strict = strict;
  options.comm_dtype = *dtype;
  if (vm.count("rank")) options.rank = rank;
  if (vm.count("ranks")) options.group = group;
  if (vm["per-rank"].as<bool>()) return write_per_rank(files, options, out);
  const workload::ChakraImport imported = workload::import_chakra(files, options);
  const std::string& file = imported.summary.imported_file;
  workload::write_trace(imported.trace, out);
  if (!summary_out.empty()) {
    write_file_atomic(summary_out, workload::to_json(imported.summary).dump(2) + "\n");
  }
  for (const std::string& line : workload::format_warnings(imported.summary, file)) {
    std::cerr << line << "\n";
  }
  std::cout << "wrote " << out << ": " << imported.trace.ops.size() << " ops imported from "
            << files.size() << " rank file(s)\n"
            << workload::format_summary(imported.summary) << "\n";
  return 0;
}

}  // namespace

int cmd_trace(const Args& args, const Env& env) {
  if (args.empty()) throw UsageError(std::string("missing subcommand; usage: ") + kUsage);
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << "usage: " << kUsage << "\n";
    return 0;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "gen") return trace_gen(rest, env);
  if (args[0] == "import-kineto") return trace_import_kineto(rest);
  if (args[0] == "import-chakra") return trace_import_chakra(rest);
  throw UsageError("unknown subcommand '" + args[0] +
                   "' (expected gen, import-kineto or import-chakra)");
}

}  // namespace t3sim::cli
