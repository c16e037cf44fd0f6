#include "studies/sweep_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/atomic_file.h"
#include "sim/errors.h"

namespace t3sim::studies {
namespace {
constexpr const char* kResultColumns[] = {"total_us",   "gemm_us",    "rs_exposed_us", "ag_us",
                                          "dram_total", "link_bytes", "events"};

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
}  // namespace

SweepOutput::SweepOutput(std::filesystem::path path, const SweepSpec& spec, bool resume,
                         std::string fingerprint)
    : path_(std::move(path)),
      fingerprint_(std::move(fingerprint)),
      spec_(spec),
      jsonl_(is_jsonl(path_)) {
  const std::filesystem::path target = output_target(path_);  // refuses FIFOs, devices, folders
  std::error_code ec;
  continued_ = resume && std::filesystem::is_regular_file(target, ec);
  if (continued_) {
    load_existing();
    std::ifstream in(path_.string() + ".spec");
    std::string kept;
    std::getline(in, kept);
    if (kept != fingerprint_ && !rows_.empty()) {  // written for another base, system or model
      spec_changed_ = true;
      stale_ += rows_.size();
      rows_.clear();
    }
    create();
    return;
  }
  // A new output appears with its first row (an existing one under --force stays until then);
  // a folder that cannot take it is refused now, before any point runs.
  const std::filesystem::path dir =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw ConfigError(path_.string(), "",
                      "cannot write into '" + dir.string() + "': " + std::strerror(errno) +
                          "; check permissions or name another file");
  }
}

void SweepOutput::create() {
  created_ = true;
  write_file_atomic(path_.string() + ".spec", fingerprint_ + "\n");
  // (Re)write header + kept rows atomically, so appends never follow a torn fragment.
  std::string init = jsonl_ ? std::string() : header() + "\n";
  for (const auto& [i, line] : rows_) init += line + "\n";
  write_file_atomic(path_, init);
  fd_ = ::open(output_target(path_).c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) {
    throw ConfigError(path_.string(), "",
                      std::string("cannot open for appending rows: ") + std::strerror(errno) +
                          "; check permissions");
  }
}

void SweepOutput::discard() noexcept {
  if (continued_ || append_failed_ || !created_) return;  // kept, or never created
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  std::error_code ec;
  std::filesystem::remove(path_, ec);
  std::filesystem::remove(path_.string() + ".spec", ec);
}

SweepOutput::~SweepOutput() {
  if (fd_ >= 0) ::close(fd_);
}

std::string SweepOutput::header() const {
  std::string h = "index";
  for (const auto& c : spec_.columns) h += "," + csv_field(c);
  for (const char* c : kResultColumns) h += std::string(",") + c;
  return h;
}

void SweepOutput::load_existing() {
  std::ifstream in(path_);
  if (!in) return;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string all = ss.str();
  size_t pos = 0;
  bool first = !jsonl_;
  while (pos < all.size()) {
    const size_t nl = all.find('\n', pos);
    if (nl == std::string::npos) break;  // a torn last row: dropped, the point reruns
    const std::string line = all.substr(pos, nl - pos);
    pos = nl + 1;
    if (first) {
      first = false;
      if (line != header()) {
        throw ConfigError(path_.string(), "",
                          "--resume: the header does not match this sweep "
                          "(different spec?); use another --out");
      }
      continue;
    }
    const std::optional<size_t> index = row_index(line);
    if (!index) continue;  // unparsable fragment: rerun that point
    if (matches_spec(*index, line)) {
      rows_[*index] = line;
    } else {
      ++stale_;  // written for other axis values (the spec changed): rerun that point
    }
  }
}

std::optional<size_t> SweepOutput::row_index(const std::string& line) const {
  try {
    if (jsonl_) return nlohmann::json::parse(line).at("index").get<size_t>();
    const std::string field = line.substr(0, line.find(','));
    size_t used = 0;
    const size_t index = std::stoul(field, &used);
    if (used != field.size()) return std::nullopt;
    return index;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool SweepOutput::matches_spec(size_t index, const std::string& line) const {
  if (index >= spec_.points()) return false;
  const SweepPoint p = sweep_point(spec_, index);
  if (!jsonl_) {
    std::string prefix = std::to_string(index);
    for (const auto& l : p.labels) prefix += "," + csv_field(l);
    return line.rfind(prefix + ",", 0) == 0;
  }
  const nlohmann::json row = nlohmann::json::parse(line);
  for (size_t c = 0; c < spec_.columns.size(); ++c) {
    const auto v = row.find(spec_.columns[c]);
    if (v == row.end() || *v != p.labels[c]) return false;
  }
  return true;
}

bool is_jsonl(const std::filesystem::path& path) { return path.extension() == ".jsonl"; }

std::string format_sweep_row(const SweepSpec& spec_, bool jsonl_, size_t index, const SweepPoint& p,
                             const system::SublayerResult& r) {
  if (jsonl_) {
    nlohmann::ordered_json j;
    j["index"] = index;
    for (size_t c = 0; c < spec_.columns.size(); ++c) j[spec_.columns[c]] = p.labels[c];
    j["total_us"] = r.total_us;
    j["gemm_us"] = r.gemm_us;
    j["rs_exposed_us"] = r.rs_exposed_us;
    j["ag_us"] = r.ag_us;
    j["dram_total"] = r.dram_total;
    j["link_bytes"] = r.link_bytes;
    j["events"] = r.events;
    return j.dump();
  }
  std::string s = std::to_string(index);
  for (const auto& l : p.labels) s += "," + csv_field(l);
  s += fmt::format(",{:.3f},{:.3f},{:.3f},{:.3f},{},{},{}", r.total_us, r.gemm_us, r.rs_exposed_us,
                   r.ag_us, r.dram_total, r.link_bytes, r.events);
  return s;
}

void SweepOutput::append(size_t index, const std::string& line) {
  if (fd_ < 0) create();
  rows_[index] = line;
  const std::string l = line + "\n";
  std::string_view rest = l;
  while (!rest.empty()) {
    const ssize_t n = ::write(fd_, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      append_failed_ = true;
      throw ConfigError(path_.string(), "",
                        "cannot append the row of point " + std::to_string(index) + ": " +
                            std::strerror(err) +
                            "; free space, then rerun with --resume to keep the rows written so "
                            "far");
    }
    rest.remove_prefix(static_cast<size_t>(n));
  }
}

void SweepOutput::finalize() {
  if (!created_) write_file_atomic(path_.string() + ".spec", fingerprint_ + "\n");
  std::string out = jsonl_ ? std::string() : header() + "\n";
  for (const auto& [i, line] : rows_) out += line + "\n";
  write_file_atomic(path_, out);
}

}  // namespace t3sim::studies
