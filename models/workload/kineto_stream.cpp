// import_kineto_file (kineto_import.h): the profile streamed, keeping what the import reads.
#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <fstream>
#include <iterator>
#include <string_view>
#include <utility>

#include <unistd.h>

#include "models/workload/json_stream.h"
#include "models/workload/kineto_groups.h"
#include "models/workload/kineto_import.h"
#include "sim/errors.h"
#include "sim/gzip_file.h"
#include "sim/json_file.h"
#include "sim/strict_json.h"

namespace t3sim::workload {
namespace {

// Categories of the events the import reads (kineto_import.cpp, kineto_launch.cpp).
constexpr std::array<std::string_view, 12> kKeptCats = {
    "kernel",  "gpu_memcpy",  "gpu_memset",  "memcpy", "memset",   "cuda_runtime",
    "runtime", "cuda_driver", "hip_runtime", "cpu_op", "operator", "user_annotation"};
// Members of those events, and keys of their args, that the import reads.
constexpr std::array<std::string_view, 8> kKeptMembers = {"ph",  "cat", "name", "ts",
                                                          "dur", "pid", "tid",  "args"};
constexpr std::array<std::string_view, 21> kKeptArgs = {"bytes",  // memcpy / memset size
                                                        "kind",   // ROCm copy direction
                                                        "External id",
                                                        "external id",
                                                        "correlation",
                                                        "stream",
                                                        "Input Dims",
                                                        "Input type",
                                                        "Concrete Inputs",
                                                        "Collective name",
                                                        "In msg nelems",
                                                        "Out msg nelems",
                                                        "dtype",
                                                        "Group size",
                                                        "Process Group Ranks",
                                                        "Global rank start",
                                                        "Global rank stride",
                                                        "Rank",
                                                        "Src Rank",
                                                        "Dst Rank",
                                                        "Process Group Name"};
// Events kept: each is its trimmed CBOR in KinetoEvents (kineto_events.h), ~170 bytes with its
// place and its index in the file (152 bytes of CBOR on average in synth_kineto.py's profiles);
// with the launch index and the ops built, ~415 bytes per kept event at the peak (docs/traces.md:
// 1.66 GB for 4 M), so 2^24 is ~7 GB; a profile of more is refused.
constexpr std::size_t kMaxKeptEvents = std::size_t{1} << 24;

template <std::size_t N>
bool among(const std::array<std::string_view, N>& set, std::string_view key) {
  return std::find(set.begin(), set.end(), key) != set.end();
}

bool kept_category(const nlohmann::json& e) {
  const auto cat = e.find("cat");
  if (cat == e.end() || !cat->is_string()) return false;
  std::string lower = cat->get<std::string>();
  if (lower.size() > 16) return false;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return among(kKeptCats, lower);
}

// The event with only what the import reads.
nlohmann::json trimmed(nlohmann::json& e) {
  nlohmann::json out = nlohmann::json::object();
  for (auto it = e.begin(); it != e.end(); ++it) {
    if (!among(kKeptMembers, it.key())) continue;
    if (it.key() != "args" || !it->is_object()) {
      out[it.key()] = std::move(*it);
      continue;
    }
    nlohmann::json args = nlohmann::json::object();
    for (auto a = it->begin(); a != it->end(); ++a) {
      if (among(kKeptArgs, a.key())) args[a.key()] = std::move(*a);
    }
    out["args"] = std::move(args);
  }
  return out;
}

// A compressed profile's text, decompressed into a temporary file that is streamed like a plain
// one (and removed when done), so a .json.gz is not bound by the whole-document limit either.
class Decompressed {
 public:
  Decompressed(const std::filesystem::path& path, const std::string& file) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const std::string text = gunzip(bytes, file, kMaxDecompressedBytes);
    static std::atomic<int> serial{0};
    path_ = std::filesystem::temp_directory_path() / ("t3sim-kineto-" + std::to_string(::getpid()) +
                                                      "-" + std::to_string(serial++) + ".json");
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out)
      throw ConfigError(file, "", "cannot write the decompressed profile to " + path_.string());
  }
  ~Decompressed() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  Decompressed(const Decompressed&) = delete;
  Decompressed& operator=(const Decompressed&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  static constexpr std::uint64_t kMaxDecompressedBytes = std::uint64_t{4} << 30;
  std::filesystem::path path_;
};

bool gzip_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {0, 0};
  in.read(magic, 2);
  return in.gcount() == 2 && is_gzip(std::string_view(magic, 2));
}

KinetoImport import_kineto_stream(const std::filesystem::path& path, const std::string& file,
                                  const KinetoImportOptions& options) {
  KinetoEvents kept;
  std::vector<std::size_t> original;
  const auto keep = [&](nlohmann::json& e, std::size_t index, const nlohmann::json&) {
    if (!e.is_object() || !kept_category(e)) return;
    if (kept.size() >= kMaxKeptEvents) {
      throw ConfigError(file, "/traceEvents/" + std::to_string(index),
                        "over " + std::to_string(kMaxKeptEvents) +
                            " GPU, launch and cpu_op events; import a shorter profile");
    }
    kept.push_back(trimmed(e));
    original.push_back(index);
  };
  nlohmann::json top;
  try {
    top = stream_json_object(path, "traceEvents", keep);
  } catch (const ConfigError& e) {  // a decompressed copy: name the file given
    if (e.file() == file) throw;
    throw ConfigError(file, e.pointer(), e.message());
  }
  const ObjectReader r(top, file, "", "Kineto Chrome trace");
  if (!r.get("traceEvents").is_array()) {
    r.fail("traceEvents", "\"traceEvents\" must be an array of events");
  }
  return import_kineto_events(std::move(kept), original, kineto_world_size(top), file, options,
                              kineto_rank(top));
}

}  // namespace

KinetoImport import_kineto_file(const std::filesystem::path& path,
                                const KinetoImportOptions& options) {
  const std::string file = path.string();
  if (gzip_file(path)) {
    const Decompressed text(path, file);
    if (is_streamable_json(text.path())) return import_kineto_stream(text.path(), file, options);
    return import_kineto_profile(read_json_file(text.path()), file, options);
  }
  if (!is_streamable_json(path)) return import_kineto_profile(read_json_file(path), file, options);
  return import_kineto_stream(path, file, options);
}

}  // namespace t3sim::workload
