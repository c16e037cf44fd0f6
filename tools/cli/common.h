// Helpers shared by the CLI subcommands: option parsing with Boost.Program_options (unknown
// options and stray arguments are usage errors; integer options take plain decimal integers in a
// stated range); system loading and sublayer resolution come from the studies library
// (studies/inputs.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <type_traits>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/commands.h"
#include "studies/inputs.h"

namespace t3sim::cli {

namespace po = boost::program_options;

// A run asked to fold that cannot simulates every GPU; up to this many that takes seconds and
// passes without a note on stderr, past it the commands say why before they start.
constexpr int kQuietFullRun = 64;
// Past kQuietFullRun GPUs: "t3sim <command>: simulating all <gpus> GPUs (<why>)" on stderr, with
// the options under which the system's runs can fold (studies::fold_options; `hierarchical`: the
// run has that algorithm already, or needs none).
void note_full_run(const char* command, const ConfigDoc& system, int gpus, const std::string& why,
                   bool hierarchical);

// After a run that wrote a Perfetto timeline to `path`: when `dropped` events went past
// --trace-max-events (`kept` of them were written), one line on stderr says how many and which
// flag keeps them: "t3sim <command>: --trace-out F: N events past --trace-max-events K were
// dropped (...)". Nothing when none was dropped.
void note_trace_dropped(const char* command, const std::string& path, uint64_t dropped,
                        uint64_t kept);

// Parses `text` as a plain decimal integer in [lo, hi] (no sign for lo >= 0, no spaces, no
// exponent); else throws the Boost.Program_options error that names the option and the range.
std::int64_t parse_integer_option(const std::string& text, std::int64_t lo, std::int64_t hi);

// An integer option stored in `*store` that accepts only parse_integer_option's integers in
// [lo, hi]: "-8", "1e3", "12abc" and out-of-range values are usage errors (exit 2), never wrapped.
template <typename T>
class IntegerValue final : public po::typed_value<T> {
 public:
  IntegerValue(T* store, T lo, T hi) : po::typed_value<T>(store), lo_(lo), hi_(hi) {}
  void xparse(boost::any& value_store, const std::vector<std::string>& tokens) const override {
    value_store = static_cast<T>(parse_integer_option(po::validators::get_single_string(tokens),
                                                      static_cast<std::int64_t>(lo_),
                                                      static_cast<std::int64_t>(hi_)));
  }

 private:
  T lo_;
  T hi_;
};

template <typename T>
IntegerValue<T>* integer(T* store, T lo, T hi) {
  static_assert(std::is_integral_v<T>);
  return new IntegerValue<T>(store, lo, hi);  // owned by the options_description
}

// Before any work: `path`, given with `flag` ("--out"), must be a folder or not exist yet (it is
// created now); an existing file or other non-folder there, or a folder that cannot be created
// (/proc/x, no permission), is a ConfigError naming the flag.
void check_output_dir(const std::string& flag, const std::filesystem::path& path);

// One file a command reads, and what it is ("the profile", "--system"), for refuse_input_output.
struct InputFile {
  std::filesystem::path path;
  std::string what;
};

// The files a loaded config came from (its top-level file and every file its "extends" chain
// set a value from; not --set), appended to `inputs` as `what`.
void add_config_files(std::vector<InputFile>& inputs, const ConfigDoc& doc,
                      const std::string& what);

// The file of model `name` (configs/models/<name>.json) as an input.
InputFile model_file(const Env& env, const std::string& name);

// Whether `a` and `b` name the same file: std::filesystem::equivalent when both exist (links and
// hard links included), else their weakly_canonical forms compared.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// Before any work: an output `path` given with `flag` ("--trace-out") that names the same file as
// one of `inputs` would destroy that input; a ConfigError (exit 2) naming the flag, the input and
// the fix. An empty `path` (output off) passes.
void refuse_input_output(const std::string& flag, const std::filesystem::path& path,
                         const std::vector<InputFile>& inputs);

// Before any work: two outputs of one command naming the same file (one would replace the
// other) are a UsageError naming both flags. An empty path (output off) passes.
void refuse_same_outputs(const std::string& flag_a, const std::filesystem::path& a,
                         const std::string& flag_b, const std::filesystem::path& b);

// Parses `args` against `desc` (+ positional), prints help and returns false on --help.
bool parse_options(const Args& args, const po::options_description& desc, po::variables_map& vm,
                   const po::positional_options_description* positional = nullptr,
                   const char* usage = nullptr);

// The studies' input helpers, used by most commands.
using studies::ar_pass;
using studies::choose_sublayer;
using studies::load_system;
using studies::SublayerChoice;

}  // namespace t3sim::cli
