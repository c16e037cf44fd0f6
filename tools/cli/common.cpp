#include "cli/common.h"

#include <charconv>
#include <cstdio>
#include <iostream>
#include <limits>
#include <set>
#include <vector>

#include "models/system/system.h"
#include "sim/errors.h"
#include "studies/probes.h"

namespace t3sim::cli {

std::int64_t parse_integer_option(const std::string& text, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || v < lo || v > hi) {
    po::error_with_option_name e(
        "the argument '%value%' for option '%canonical_option%' is "
        "invalid: give an integer in [" +
        std::to_string(lo) + ", " + std::to_string(hi) + "]");
    e.set_substitute("value", text);
    throw e;
  }
  return v;
}

void check_output_dir(const std::string& flag, const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);  // follows links
  if (std::filesystem::exists(status) && !std::filesystem::is_directory(status)) {
    throw ConfigError(flag, "",
                      "'" + path.string() +
                          "' exists and is not a folder; name a folder for the results (it is "
                          "created if missing)");
  }
  std::filesystem::create_directories(path, ec);
  if (ec) {
    throw ConfigError(flag, "",
                      "cannot create the folder '" + path.string() + "': " + ec.message() +
                          "; name a folder you can write to");
  }
}

void add_config_files(std::vector<InputFile>& inputs, const ConfigDoc& doc,
                      const std::string& what) {
  std::set<std::string> files;
  if (!doc.file.empty()) files.insert(doc.file);
  for (const auto& [pointer, file] : doc.origin) {
    if (file != "--set") files.insert(file);
  }
  for (const std::string& f : files) inputs.push_back({f, what});
}

InputFile model_file(const Env& env, const std::string& name) {
  return {env.configs_dir / "models" / (name + ".json"), "model '" + name + "'"};
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec)) {
    const bool same = std::filesystem::equivalent(a, b, ec);
    if (!ec) return same;
  }
  const auto ca = std::filesystem::weakly_canonical(a, ec);
  if (ec) return false;
  const auto cb = std::filesystem::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

void refuse_input_output(const std::string& flag, const std::filesystem::path& path,
                         const std::vector<InputFile>& inputs) {
  if (path.empty()) return;
  for (const InputFile& in : inputs) {
    if (in.path.empty() || !same_file(path, in.path)) continue;
    const std::string also = path == in.path ? "" : ", '" + in.path.string() + "'";
    throw ConfigError(flag, "",
                      "'" + path.string() + "' is an input (" + in.what + also +
                          "): writing it would destroy it; name another output file");
  }
}

void refuse_same_outputs(const std::string& flag_a, const std::filesystem::path& a,
                         const std::string& flag_b, const std::filesystem::path& b) {
  if (a.empty() || b.empty() || !same_file(a, b)) return;
  throw UsageError(flag_a + " and " + flag_b + " name the same file '" + b.string() +
                   "': give each its own file");
}

namespace {

constexpr const char* kStray = "stray-argument";  // hidden: catches words no option takes

// `positional` (or nothing) followed by kStray, so a stray word can be named in the error (Boost
// alone says "too many positional options", or without a description drops the word).
po::positional_options_description with_stray(const po::positional_options_description* p) {
  const unsigned n = p != nullptr ? p->max_total_count() : 0;
  if (n == std::numeric_limits<unsigned>::max()) return *p;  // takes any number of words
  po::positional_options_description out;
  for (unsigned i = 0; i < n; ++i) out.add(p->name_for_position(i).c_str(), 1);
  out.add(kStray, -1);
  return out;
}

}  // namespace

bool parse_options(const Args& args, const po::options_description& desc, po::variables_map& vm,
                   const po::positional_options_description* positional, const char* usage) {
  po::options_description all(desc);
  all.add_options()("help,h", "show this help");
  po::options_description parsed(all);
  parsed.add_options()(kStray, po::value<std::vector<std::string>>(), "");
  po::command_line_parser parser(args);
  parser.options(parsed);
  const po::positional_options_description words =
      with_stray(positional);  // parser keeps a pointer
  parser.positional(words);
  po::store(parser.run(), vm);
  if (vm.count("help") != 0) {
    if (usage != nullptr) std::cout << "usage: " << usage << "\n\n";
    std::cout << all << "\n";
    return false;
  }
  if (vm.count(kStray) != 0) {
    throw UsageError("unexpected argument '" + vm[kStray].as<std::vector<std::string>>().front() +
                     "'" + (usage != nullptr ? std::string("; usage: ") + usage : std::string()));
  }
  po::notify(vm);
  return true;
}

void note_full_run(const char* command, const ConfigDoc& system, int gpus, const std::string& why,
                   bool hierarchical) {
  if (gpus <= kQuietFullRun) return;
  const std::string fix = studies::fold_options(system, hierarchical);
  std::fprintf(stderr, "t3sim %s: simulating all %d GPUs (%s)%s\n", command, gpus, why.c_str(),
               fix.empty() ? "" : ("; `" + fix + "` can fold it").c_str());
}

void note_trace_dropped(const char* command, const std::string& path, uint64_t dropped,
                        uint64_t kept) {
  if (dropped == 0) return;
  std::fprintf(stderr,
               "t3sim %s: --trace-out %s: %llu events past --trace-max-events %llu were dropped "
               "(the timeline ends early; raise --trace-max-events or lower --trace-gpus)\n",
               command, path.c_str(), static_cast<unsigned long long>(dropped),
               static_cast<unsigned long long>(kept));
}

}  // namespace t3sim::cli
