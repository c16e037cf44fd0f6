// `t3sim calibrate --preset P --gemm CSV [--hbm CSV --hbm-out FILE] -o NEW [--system S]`: fits the
// GEMM `efficiency` of GPU preset P (and, with --hbm, the HBM `efficiency` of the system's HBM
// preset) to measured rows by a deterministic search (validation_sets.h fit_scalar) minimising the
// median |% error|. NEW "extends" P and overrides only the fitted key; a "$calibration" annotation
// records the input files (repository path, size, SHA-256), the search, the fitted and base values
// and the error before/after. No date is written, so the same inputs give the same bytes. P is
// never written. launch_overhead is not fitted: the GEMM time (as `t3sim gemm`) starts after it.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>

#include "cli/common.h"
#include "models/gpu/gpu_spec.h"
#include "sim/atomic_file.h"
#include "sim/errors.h"
#include "sim/json_file.h"
#include "tools/studies/parallel.h"
#include "validation/lib/validation_sets.h"

namespace t3sim::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using validation::FitResult;

// SHA-256 (FIPS 180-4) of a file's bytes, lower-case hex.
std::string sha256_hex(const std::string& data) {
  static constexpr std::array<uint32_t, 64> kK = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
      0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
      0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
      0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
      0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
      0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
      0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
      0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2};
  std::array<uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string msg = data;
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  msg.push_back(static_cast<char>(0x80));
  while (msg.size() % 64 != 56) msg.push_back('\0');
  for (int i = 7; i >= 0; --i) msg.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  const auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (size_t off = 0; off < msg.size(); off += 64) {
    std::array<uint32_t, 64> w{};
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 4; ++j) {
        w[i] = (w[i] << 8) | static_cast<uint8_t>(msg[off + 4 * static_cast<size_t>(i) + j]);
      }
    }
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::array<uint32_t, 8> v = h;
    for (int i = 0; i < 64; ++i) {
      const uint32_t t1 = v[7] + (rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25)) +
                          ((v[4] & v[5]) ^ (~v[4] & v[6])) + kK[i] + w[i];
      const uint32_t t2 = (rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22)) +
                          ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
      for (int j = 7; j > 0; --j) v[j] = v[j - 1];
      v[4] += t1;
      v[0] = t1 + t2;
    }
    for (int j = 0; j < 8; ++j) h[j] += v[j];
  }
  std::string out;
  char buf[9];
  for (const uint32_t x : h) std::snprintf(buf, sizeof buf, "%08x", x), out += buf;
  return out;
}

ordered_json file_record(const Env& env, const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ordered_json j;
  j["path"] = validation::display_path(env, path);
  j["bytes"] = data.size();
  j["sha256"] = sha256_hex(data);
  return j;
}

ordered_json stats_json(const validation::ErrorStats& s) {
  return {{"points", s.points},
          {"median_abs_pct", validation::round2(s.median_abs_pct)},
          {"max_abs_pct", validation::round2(s.max_abs_pct)}};
}

fs::path resolve_preset(const Env& env, const std::string& p) {
  if (fs::is_regular_file(p)) return p;
  const fs::path dir = env.configs_dir / "presets" / "gpus";
  if (fs::is_regular_file(dir / (p + ".json"))) return dir / (p + ".json");
  std::vector<std::string> names;
  if (fs::is_directory(dir)) {
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  const std::string hint = nearest_name(p, names);
  throw ConfigError(
      "--preset", "",
      "unknown GPU preset '" + p + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
}

nlohmann::json read_raw(const fs::path& file) { return t3sim::read_json_file(file); }

// The preset that `obj.key.extends` of the JSON file `file` names, resolved as load_config does.
std::optional<fs::path> extends_of(const Env& env, const fs::path& file, const char* key) {
  const nlohmann::json j = read_raw(file);
  if (!j.contains(key) || !j[key].is_object() || !j[key].contains("extends")) return std::nullopt;
  if (!j[key]["extends"].is_string()) return std::nullopt;
  const std::string ext = j[key]["extends"].get<std::string>();
  for (const fs::path& base : {file.parent_path(), env.configs_dir}) {
    if (fs::is_regular_file(base / ext)) return base / ext;
  }
  return std::nullopt;
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::exists(a) && fs::exists(b) && fs::equivalent(a, b, ec);
}

// The system with the fewest GPUs (then by name) whose "gpu" extends `preset`.
std::string default_system(const Env& env, const fs::path& preset) {
  std::vector<std::pair<int64_t, std::string>> found;
  const fs::path dir = env.configs_dir / "systems";
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    const auto ext = extends_of(env, e.path(), "gpu");
    if (!ext || !same_file(*ext, preset)) continue;
    const nlohmann::json j = read_raw(e.path());
    found.emplace_back(j.value("gpus", int64_t{0}), e.path().stem().string());
  }
  if (found.empty()) {
    throw UsageError("no system under " + dir.string() + " uses preset " + preset.string() +
                     "; pass --system");
  }
  std::sort(found.begin(), found.end());
  return found.front().second;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

void print_gemm(const std::vector<validation::GemmPoint>& pts, const FitResult& f) {
  std::printf("%5s %3s %6s %6s %6s %9s %9s %7s %9s %7s\n", "line", "b", "m", "n", "k", "measured",
              "before", "err%", "after", "err%");
  for (size_t i = 0; i < pts.size(); ++i) {
    const auto& p = pts[i];
    std::printf("%5d %3llu %6llu %6llu %6llu %9.1f %9.1f %+7.1f %9.1f %+7.1f\n", p.line,
                static_cast<unsigned long long>(p.batch), static_cast<unsigned long long>(p.m),
                static_cast<unsigned long long>(p.n), static_cast<unsigned long long>(p.k),
                p.tflops, p.tflops * (1 + f.errors_before[i] / 100), f.errors_before[i],
                p.tflops * (1 + f.errors_after[i] / 100), f.errors_after[i]);
  }
}

void print_summary(const char* what, const FitResult& f) {
  std::printf(
      "%s: %.3f -> %.3f; median |err| %.1f %% -> %.1f %%, max |err| %.1f %% -> %.1f %% "
      "over %zu points (%d evaluations)\n",
      what, f.start, f.value, f.before.median_abs_pct, f.after.median_abs_pct, f.before.max_abs_pct,
      f.after.max_abs_pct, f.after.points, f.evaluations);
}

std::string search_text(const validation::FitOptions& o) {
  return "grid " + fmt("%.2f", o.lo) + ".." + fmt("%.2f", o.hi) + " step " +
         fmt("%g", o.grid_step) + ", golden-section refinement within one step (" +
         std::to_string(o.golden_iterations) + " iterations), values rounded to " +
         fmt("%g", o.resolution) + "; objective: median |% error|";
}

// `base` as an "extends" value for a file written to `out`: relative when both are in one tree.
std::string extends_path(const fs::path& out, const fs::path& base) {
  const fs::path dir = fs::weakly_canonical(fs::absolute(out)).parent_path();
  const fs::path target = fs::weakly_canonical(fs::absolute(base));
  const fs::path rel = target.lexically_relative(dir);
  const bool up = !rel.empty() && *rel.begin() == "..";
  const bool same_tree = !up || std::distance(rel.begin(), rel.end()) <= 5;
  return (same_tree && !rel.empty() ? rel : target).generic_string();
}

// A preset that extends `base` and overrides only `key` with the fitted value. `inputs` holds the
// calibration's system, fitted_to, objective and search; `details` is appended after the errors.
ordered_json fitted_preset(const Env& env, const fs::path& out, const fs::path& base,
                           const std::string& key, const FitResult& f, const std::string& what,
                           const ordered_json& inputs, const ordered_json& details) {
  const std::string fitted_to = inputs["fitted_to"][0]["path"].get<std::string>();
  ordered_json j;
  j["description"] = "calibrated " + what + ": " + base.stem().string() + " with " + key +
                     " fitted by t3sim calibrate to " + fitted_to;
  j["extends"] = extends_path(out, base);
  j[key] = f.value;
  j["source"] = {{key, "fitted to " + fitted_to + " by t3sim calibrate (median |err| " +
                           fmt("%.1f", f.before.median_abs_pct) + " % at " + fmt("%g", f.start) +
                           " -> " + fmt("%.1f", f.after.median_abs_pct) + " %); see $calibration"}};
  ordered_json cal;
  cal["tool"] = "t3sim calibrate";
  cal["base_preset"] = validation::display_path(env, base);
  for (const auto& [k, v] : inputs.items()) cal[k] = v;
  cal["base"] = {{key, f.start}};
  cal["fitted"] = {{key, f.value}};
  cal["error_before"] = stats_json(f.before);
  cal["error_after"] = stats_json(f.after);
  for (const auto& [k, v] : details.items()) cal[k] = v;
  j["$calibration"] = std::move(cal);
  return j;
}

ordered_json gemm_points_json(const std::vector<validation::GemmPoint>& pts, const FitResult& f) {
  ordered_json arr = ordered_json::array();
  for (size_t i = 0; i < pts.size(); ++i) {
    const auto& p = pts[i];
    arr.push_back({{"line", p.line},
                   {"b", p.batch},
                   {"m", p.m},
                   {"n", p.n},
                   {"k", p.k},
                   {"measured_tflops", p.tflops},
                   {"err_before_pct", validation::round2(f.errors_before[i])},
                   {"err_after_pct", validation::round2(f.errors_after[i])}});
  }
  return arr;
}

struct CalibrateOptions {
  std::string preset, gemm, hbm, hbm_out, out, system;
  unsigned threads = 1;
  validation::FitOptions fit;
};

// Fits hbm.efficiency (GPU 0 streaming bandwidth), writes the HBM preset; returns the fit.
FitResult calibrate_hbm(const Env& env, const CalibrateOptions& o, ConfigDoc& doc,
                        const std::string& sys_name) {
  const fs::path csv = validation::find_input(env, o.hbm);
  const auto pts = validation::load_hbm_csv(csv);
  if (pts.empty()) throw ConfigError(csv.string(), "", "no HBM rows to fit");
  const auto base = extends_of(env, doc.file, "hbm");
  if (!base)
    throw ConfigError(doc.file, "/hbm", "--hbm-out needs the system's hbm to extend a preset");
  if (!doc.root["hbm"].contains("efficiency")) {
    throw ConfigError(base->string(), "/efficiency",
                      "the HBM preset must set efficiency to fit it");
  }
  const double start = doc.root["hbm"]["efficiency"].get<double>();
  const FitResult f = validation::fit_scalar(start, o.fit, [&](double v) {
    return validation::hbm_errors(validation::with_value(doc, "hbm.efficiency", v), pts, o.threads);
  });
  print_summary("hbm efficiency", f);
  ordered_json cal;
  cal["system"] = sys_name;
  cal["fitted_to"] = ordered_json::array({file_record(env, csv)});
  cal["objective"] = "median |% error| of hbm_bench GB/s over " + std::to_string(pts.size()) +
                     " rows, GPU 0 streams as t3sim membw";
  cal["search"] = search_text(o.fit);
  const ordered_json j =
      fitted_preset(env, o.hbm_out, *base, "efficiency", f, "HBM", cal, ordered_json::object());
  write_file_atomic(o.hbm_out, j.dump(2) + "\n");
  std::printf("wrote %s\n", o.hbm_out.c_str());
  doc = validation::with_value(doc, "hbm.efficiency", f.value);
  return f;
}

// Fits gpu.efficiency to the GEMM rows and writes the GPU preset.
void calibrate_gemm(const Env& env, const CalibrateOptions& o, const ConfigDoc& doc,
                    const std::string& sys_name, const fs::path& preset,
                    const std::optional<FitResult>& hbm_fit) {
  const fs::path csv = validation::find_input(env, o.gemm);
  const auto pts = validation::load_gemm_csv(csv);
  if (pts.empty()) throw ConfigError(csv.string(), "", "no GEMM rows to fit");
  const double start = doc.root["gpu"]["efficiency"].get<double>();
  const FitResult f = validation::fit_scalar(start, o.fit, [&](double v) {
    return validation::gemm_errors(validation::with_value(doc, "gpu.efficiency", v), pts,
                                   o.threads);
  });
  std::printf("t3sim calibrate: preset %s on system %s, %zu GEMM rows of %s (TFLOP/s)\n",
              validation::display_path(env, preset).c_str(), sys_name.c_str(), pts.size(),
              validation::display_path(env, csv).c_str());
  print_gemm(pts, f);
  print_summary("gpu efficiency", f);
  ordered_json cal;
  cal["system"] = sys_name;
  cal["fitted_to"] = ordered_json::array({file_record(env, csv)});
  cal["objective"] = "median |% error| of TFLOP/s over " + std::to_string(pts.size()) +
                     " GEMM rows (batched rows as (M x b) x N x K), kernel time as t3sim gemm";
  cal["search"] = search_text(o.fit);
  ordered_json details;
  if (hbm_fit) {
    details["hbm"] = {{"efficiency", hbm_fit->value},
                      {"fitted_to", file_record(env, validation::find_input(env, o.hbm))},
                      {"written_to", validation::display_path(env, o.hbm_out)},
                      {"note", "the GEMM fit ran with this HBM efficiency"}};
  }
  details["not_fitted"] = {{"launch_overhead",
                            "the GEMM time (as t3sim gemm) runs from the first "
                            "dispatch to the last store, after the launch "
                            "overhead, so the measurements do not constrain it"}};
  details["points"] = gemm_points_json(pts, f);
  const ordered_json j = fitted_preset(env, o.out, preset, "efficiency", f, "GPU", cal, details);
  write_file_atomic(o.out, j.dump(2) + "\n");
}

}  // namespace

int cmd_calibrate(const Args& args, const Env& env) {
  po::options_description desc("t3sim calibrate options");
  CalibrateOptions o;
  desc.add_options()("preset", po::value(&o.preset)->required(), "GPU preset name or path (P)")(
      "gemm", po::value(&o.gemm)->required(), "GEMM CSV (XLA table or gemm_bench layout)")(
      "hbm", po::value(&o.hbm), "HBM CSV (hbm_bench layout: pattern,bytes,median_us,gbps)")(
      "hbm-out", po::value(&o.hbm_out), "HBM preset to write with the fitted HBM efficiency")(
      "out,o", po::value(&o.out)->required(), "GPU preset to write (extends P)")(
      "system", po::value(&o.system), "system to simulate on (default: one whose gpu is P)")(
      "threads", po::value(&o.threads)->default_value(studies::default_threads()),
      "worker threads");
  po::variables_map vm;
  if (!parse_options(args, desc, vm, nullptr,
                     "t3sim calibrate --preset P --gemm CSV [--hbm CSV --hbm-out H] -o NEW "
                     "[--system S]")) {
    return 0;
  }
  const fs::path preset = resolve_preset(env, o.preset);
  if (same_file(o.out, preset) || (!o.hbm_out.empty() && same_file(o.hbm_out, preset))) {
    throw UsageError("the output must not be the preset being calibrated (" + preset.string() +
                     "): datasheet values are never overwritten");
  }
  if (o.hbm.empty() != o.hbm_out.empty()) throw UsageError("--hbm and --hbm-out go together");
  const std::string sys_name = o.system.empty() ? default_system(env, preset) : o.system;
  ConfigDoc doc = load_system(env, sys_name, {});
  const ConfigDoc pdoc = load_config(preset, {env.configs_dir});
  gpu::bind_gpu(ConfigNode::root(pdoc));
  if (doc.root["gpu"] != pdoc.root) {
    std::printf("note: system %s's gpu replaced by preset %s\n", sys_name.c_str(),
                preset.string().c_str());
    doc.root["gpu"] = pdoc.root;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<FitResult> hbm_fit;
  if (!o.hbm.empty()) hbm_fit = calibrate_hbm(env, o, doc, sys_name);
  calibrate_gemm(env, o, doc, sys_name, preset, hbm_fit);
  std::printf("wrote %s (fit took %.1f s)\n", o.out.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return 0;
}

}  // namespace t3sim::cli
