#include "studies/validation/calibrate.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "models/gpu/gpu_spec.h"
#include "sim/atomic_file.h"
#include "sim/errors.h"
#include "sim/json_file.h"
#include "studies/inputs.h"
#include "studies/validation/sha256.h"

namespace t3sim::validation {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using studies::Env;
using studies::load_system;

ordered_json file_record(const Env& env, const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ordered_json j;
  j["path"] = display_path(env, path);
  j["bytes"] = data.size();
  j["sha256"] = sha256_hex(data);
  return j;
}

ordered_json stats_json(const ErrorStats& s) {
  return {{"points", s.points},
          {"median_abs_pct", round2(s.median_abs_pct)},
          {"max_abs_pct", round2(s.max_abs_pct)}};
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

std::string search_text(const FitOptions& o) {
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
  cal["base_preset"] = display_path(env, base);
  for (const auto& [k, v] : inputs.items()) cal[k] = v;
  cal["base"] = {{key, f.start}};
  cal["fitted"] = {{key, f.value}};
  cal["error_before"] = stats_json(f.before);
  cal["error_after"] = stats_json(f.after);
  for (const auto& [k, v] : details.items()) cal[k] = v;
  j["$calibration"] = std::move(cal);
  return j;
}

ordered_json gemm_points_json(const std::vector<GemmPoint>& pts, const FitResult& f) {
  ordered_json arr = ordered_json::array();
  for (size_t i = 0; i < pts.size(); ++i) {
    const auto& p = pts[i];
    arr.push_back({{"line", p.line},
                   {"b", p.batch},
                   {"m", p.m},
                   {"n", p.n},
                   {"k", p.k},
                   {"measured_tflops", p.tflops},
                   {"err_before_pct", round2(f.errors_before[i])},
                   {"err_after_pct", round2(f.errors_after[i])}});
  }
  return arr;
}

// Fits hbm.efficiency (GPU 0 streaming bandwidth), writes the HBM preset; returns the fit.
FitResult calibrate_hbm(const Env& env, const CalibrateRequest& o, ConfigDoc& doc,
                        const std::string& sys_name) {
  const fs::path csv = find_input(env, o.hbm);
  const auto pts = load_hbm_csv(csv);
  if (pts.empty()) throw ConfigError(csv.string(), "", "no HBM rows to fit");
  const auto base = extends_of(env, doc.file, "hbm");
  if (!base)
    throw ConfigError(doc.file, "/hbm", "--hbm-out needs the system's hbm to extend a preset");
  if (!doc.root["hbm"].contains("efficiency")) {
    throw ConfigError(base->string(), "/efficiency",
                      "the HBM preset must set efficiency to fit it");
  }
  const double start = doc.root["hbm"]["efficiency"].get<double>();
  const FitResult f = fit_scalar(start, o.fit, [&](double v) {
    return hbm_errors(with_value(doc, "hbm.efficiency", v), pts, o.threads);
  });
  ordered_json cal;
  cal["system"] = sys_name;
  cal["fitted_to"] = ordered_json::array({file_record(env, csv)});
  cal["objective"] = "median |% error| of hbm_bench GB/s over " + std::to_string(pts.size()) +
                     " rows, GPU 0 streams as t3sim membw";
  cal["search"] = search_text(o.fit);
  const ordered_json j =
      fitted_preset(env, o.hbm_out, *base, "efficiency", f, "HBM", cal, ordered_json::object());
  write_file_atomic(o.hbm_out, j.dump(2) + "\n");
  doc = with_value(doc, "hbm.efficiency", f.value);
  return f;
}

// Fits gpu.efficiency to the GEMM rows and writes the GPU preset; fills the GEMM part of `c`.
void calibrate_gemm(const Env& env, const CalibrateRequest& o, const ConfigDoc& doc,
                    Calibration& c) {
  const std::string& sys_name = c.system;
  const fs::path& preset = c.preset;
  const std::optional<FitResult>& hbm_fit = c.hbm_fit;
  const fs::path csv = find_input(env, o.gemm);
  c.gemm_csv = csv;
  c.gemm_points = load_gemm_csv(csv);
  const auto& pts = c.gemm_points;
  if (pts.empty()) throw ConfigError(csv.string(), "", "no GEMM rows to fit");
  const double start = doc.root["gpu"]["efficiency"].get<double>();
  c.gemm_fit = fit_scalar(start, o.fit, [&](double v) {
    return gemm_errors(with_value(doc, "gpu.efficiency", v), pts, o.threads);
  });
  const FitResult& f = c.gemm_fit;
  ordered_json cal;
  cal["system"] = sys_name;
  cal["fitted_to"] = ordered_json::array({file_record(env, csv)});
  cal["objective"] =
      "median |% error| of TFLOP/s over " + std::to_string(pts.size()) +
      " GEMM rows (a batched row as b products in one kernel), kernel time as t3sim gemm";
  cal["search"] = search_text(o.fit);
  ordered_json details;
  if (hbm_fit) {
    details["hbm"] = {{"efficiency", hbm_fit->value},
                      {"fitted_to", file_record(env, find_input(env, o.hbm))},
                      {"written_to", display_path(env, o.hbm_out)},
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

Calibration run_calibration(const Env& env, const CalibrateRequest& o) {
  Calibration c;
  c.preset = resolve_preset(env, o.preset);
  const fs::path& preset = c.preset;
  if (same_file(o.out, preset) || (!o.hbm_out.empty() && same_file(o.hbm_out, preset))) {
    throw UsageError("the output must not be the preset being calibrated (" + preset.string() +
                     "): datasheet values are never overwritten");
  }
  if (o.hbm.empty() != o.hbm_out.empty()) throw UsageError("--hbm and --hbm-out go together");
  c.system = o.system.empty() ? default_system(env, preset) : o.system;
  ConfigDoc doc = load_system(env, c.system, {});
  const ConfigDoc pdoc = load_config(preset, {env.configs_dir});
  gpu::bind_gpu(ConfigNode::root(pdoc));
  if (doc.root["gpu"] != pdoc.root) {
    c.gpu_replaced = true;
    doc.root["gpu"] = pdoc.root;
  }
  if (!o.hbm.empty()) c.hbm_fit = calibrate_hbm(env, o, doc, c.system);
  calibrate_gemm(env, o, doc, c);
  return c;
}

}  // namespace t3sim::validation
