// Error statistics of a validation set, its tolerance file, and where its input files are found:
// the parts of validation_sets.h that judge and locate data rather than load or simulate it.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "sim/errors.h"
#include "studies/validation/validation_sets.h"

namespace t3sim::validation {

double pct_error(double simulated, double measured) {
  if (!(measured > 0)) throw ModelError("validation", "measured value must be > 0 for a % error");
  return 100.0 * (simulated - measured) / measured;
}

double round2(double x) { return std::round(x * 100.0) / 100.0; }

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

ErrorStats error_stats(const std::vector<double>& pct_errors) {
  ErrorStats s;
  s.points = pct_errors.size();
  std::vector<double> abs;
  for (const double e : pct_errors) abs.push_back(std::fabs(e));
  s.median_abs_pct = median(abs);
  s.max_abs_pct = abs.empty() ? 0 : *std::max_element(abs.begin(), abs.end());
  return s;
}

FitResult fit_scalar(double start, const FitOptions& o,
                     const std::function<std::vector<double>(double)>& errors_at) {
  if (!(o.lo < o.hi) || !(o.grid_step > 0) || !(o.resolution > 0)) {
    throw UsageError("fit: need lo < hi, grid_step > 0 and resolution > 0");
  }
  FitResult r;
  r.start = start;
  const double inv = std::round(1.0 / o.resolution);
  const auto snap = [inv](double v) { return std::round(v * inv) / inv; };
  std::map<double, std::vector<double>> seen;
  const auto cost = [&](double v) {
    auto it = seen.find(v);
    if (it == seen.end()) {
      it = seen.emplace(v, errors_at(v)).first;
      ++r.evaluations;
    }
    return error_stats(it->second).median_abs_pct;
  };
  double best = snap(o.lo), best_cost = cost(best);
  const auto steps = static_cast<long>(std::floor((o.hi - o.lo) / o.grid_step + 1e-9));
  for (long i = 1; i <= steps; ++i) {
    const double v = snap(o.lo + static_cast<double>(i) * o.grid_step);
    if (const double c = cost(v); c < best_cost) best = v, best_cost = c;
  }
  // Golden-section refinement inside one grid step either side of the best grid point.
  const double phi = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = std::max(o.lo, best - o.grid_step), b = std::min(o.hi, best + o.grid_step);
  double c = b - phi * (b - a), d = a + phi * (b - a);
  double fc = cost(snap(c)), fd = cost(snap(d));
  for (int i = 0; i < o.golden_iterations; ++i) {
    if (fc <= fd) {
      b = d, d = c, fd = fc, c = b - phi * (b - a), fc = cost(snap(c));
    } else {
      a = c, c = d, fc = fd, d = a + phi * (b - a), fd = cost(snap(d));
    }
  }
  for (const double v : {snap(c), snap(d)}) {
    if (const double cv = cost(v); cv < best_cost) best = v, best_cost = cv;
  }
  r.value = best;
  r.errors_after = seen.at(best);
  r.errors_before = errors_at(start);
  r.before = error_stats(r.errors_before);
  r.after = error_stats(r.errors_after);
  return r;
}

ConfigDoc with_value(ConfigDoc doc, const std::string& key, double value) {
  std::ostringstream os;
  os.precision(17);
  os << key << "=" << value;
  apply_override(doc, os.str());
  return doc;
}

ToleranceFile load_tolerances(const std::filesystem::path& file) {
  const ConfigDoc doc = load_config(file);
  const ConfigNode root = ConfigNode::root(doc);
  ToleranceFile out;
  const ConfigNode exps = root.child("experiments");
  for (const auto& [name, v] : exps.json().items()) {
    if (is_annotation_key(name)) continue;
    const ConfigNode e = exps.child(name);
    const ConfigNode med = e.child("median_abs_pct");
    if (!med.json().is_number() || med.json().get<double>() <= 0) med.fail("must be a number > 0");
    const ConfigNode src = e.child("source");
    if (!src.json().is_string() || src.json().get<std::string>().empty()) {
      src.fail("must cite where the tolerance comes from");
    }
    out.experiments[name] = Tolerance{med.json().get<double>(), src.json().get<std::string>()};
  }
  if (root.has("machine_systems")) {
    for (const auto& [machine, v] : root.child("machine_systems").json().items()) {
      if (is_annotation_key(machine)) continue;
      if (!v.is_string()) root.child("machine_systems").fail_key(machine, "must be a system name");
      out.machine_systems[machine] = v.get<std::string>();
    }
  }
  if (root.has("calibration_machines")) {
    const ConfigNode cal = root.child("calibration_machines");
    for (const auto& [machine, v] : cal.json().items()) {
      if (is_annotation_key(machine)) continue;
      if (!v.is_string() || v.get<std::string>().empty()) {
        cal.fail_key(machine,
                     "must cite the document that puts this machine's data in the calibration set");
      }
      out.calibration_machines[machine] = v.get<std::string>();
    }
  }
  return out;
}

std::filesystem::path find_input(const studies::Env& env, const std::string& path) {
  if (std::filesystem::exists(path)) return path;
  if (std::filesystem::exists(env.source_dir / path)) return env.source_dir / path;
  throw ConfigError(path, "", "no such file (also looked under " + env.source_dir.string() + ")");
}

std::string display_path(const studies::Env& env, const std::filesystem::path& path) {
  std::error_code ec;
  const auto abs = std::filesystem::weakly_canonical(path, ec);
  const auto root = std::filesystem::weakly_canonical(env.source_dir, ec);
  const auto rel = abs.lexically_relative(root);
  if (!ec && !rel.empty() && *rel.begin() != "..") return rel.generic_string();
  return path.generic_string();
}

}  // namespace t3sim::validation
