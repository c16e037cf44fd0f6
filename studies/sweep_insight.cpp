#include "studies/sweep_insight.h"

#include <optional>
#include <sstream>

#include "models/fabric/builders.h"
#include "models/fabric/specs.h"
#include "models/system/system.h"
#include "studies/inputs.h"

namespace t3sim::studies {
namespace {

// The compared results: every column but the event count (an engine figure, not an output).
constexpr const char* kCompared[] = {"total_us", "gemm_us",    "rs_exposed_us",
                                     "ag_us",    "dram_total", "link_bytes"};

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

size_t stride_of(const SweepSpec& spec, size_t axis) {
  size_t s = 1;
  for (size_t a = axis + 1; a < spec.axes.size(); ++a) s *= spec.axes[a].values.size();
  return s;
}

std::string axis_name(const SweepAxis& ax) {
  std::string n;
  for (const auto& p : ax.paths) n += (n.empty() ? "" : "+") + p;
  return n;
}

std::string gbps(Bandwidth b) {
  std::ostringstream s;
  s << b.to_gbps() << " GB/s";
  return s.str();
}

}  // namespace

SweepResults read_sweep_results(const std::string& text, const SweepSpec& spec, bool jsonl) {
  SweepResults out;
  std::istringstream in(text);
  std::string line;
  bool header = !jsonl;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> row;
    if (jsonl) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_object() || !j.contains("index")) continue;
      for (const char* c : kCompared) row.push_back(j.contains(c) ? j[c].dump() : "");
      out[j["index"].get<size_t>()] = std::move(row);
      continue;
    }
    const auto f = split_csv(line);
    const size_t first = 1 + spec.columns.size();
    if (f.size() < first + std::size(kCompared)) continue;
    row.assign(f.begin() + static_cast<std::ptrdiff_t>(first),
               f.begin() + static_cast<std::ptrdiff_t>(first + std::size(kCompared)));
    out[std::stoull(f[0])] = std::move(row);
  }
  return out;
}

std::vector<InertAxis> inert_axes(const SweepSpec& spec, const SweepResults& results) {
  std::vector<InertAxis> out;
  const size_t total = spec.points();
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    const size_t n = spec.axes[a].values.size();
    if (n < 2) continue;
    const size_t stride = stride_of(spec, a);
    bool inert = true, compared = false;
    for (size_t i = 0; i < total && inert; ++i) {
      if ((i / stride) % n != 0) continue;  // i is the first value of its group
      const auto base = results.find(i);
      if (base == results.end()) continue;
      for (size_t k = 1; k < n && inert; ++k) {
        const auto other = results.find(i + k * stride);
        if (other == results.end()) continue;
        compared = true;
        inert = other->second == base->second;
      }
    }
    if (inert && compared) out.push_back(InertAxis{a, axis_name(spec.axes[a]), ""});
  }
  return out;
}

std::string binding_limit(const Env& env, const SweepSpec& spec, size_t axis) {
  const SweepAxis& ax = spec.axes[axis];
  for (const auto& p : ax.paths) {
    if (p.rfind("fabric.", 0) != 0) return "";
  }
  const size_t stride = stride_of(spec, axis);
  std::vector<std::pair<uint32_t, uint64_t>> first;  // (from, bandwidth) per edge, value 0
  std::optional<fabric::FabricConfig> cfg0;
  for (size_t k = 0; k < ax.values.size(); ++k) {
    const SweepPoint pt = sweep_point(spec, k * stride);
    const ConfigDoc doc = load_system(env, pt.system, pt.sets, pt.tp);
    const fabric::FabricConfig cfg = system::system_fabric(doc);
    std::vector<std::pair<uint32_t, uint64_t>> edges;
    for (const auto& e : fabric::build_topology(cfg).edges) {
      edges.emplace_back(e.from, e.bandwidth.bytes_per_second());
    }
    if (k == 0) {
      first = edges;
      cfg0 = cfg;
    } else if (edges != first) {
      return "";
    }
  }
  if (cfg0 && cfg0->nvswitch && cfg0->nvswitch->port_bandwidth <= cfg0->link.bandwidth) {
    return "every value builds the same fabric: GPU links run at min(link, switch port), and "
           "the switch port (fabric.switch.port_bandwidth = " +
           gbps(cfg0->nvswitch->port_bandwidth) + ") caps them";
  }
  return "every value builds a fabric with the same link bandwidths";
}

std::vector<std::string> inert_axis_warnings(const Env& env, const SweepSpec& spec,
                                             const SweepResults& results) {
  std::vector<std::string> out;
  for (InertAxis& a : inert_axes(spec, results)) {
    a.binding = binding_limit(env, spec, a.axis);
    out.push_back(
        "warning: axis '" + a.name + "' changes no result (" +
        (a.binding.empty() ? std::string("a limit elsewhere binds for every value") : a.binding) +
        ")");
  }
  return out;
}

}  // namespace t3sim::studies
