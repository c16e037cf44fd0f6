// The figures of a systems study as SVG (reproduce_study.h): speedup.svg, grouped bars of the
// geomean speedup per system and sublayer, one bar per mode; breakdown.svg, per system and mode the
// GEMM and exposed-communication time stacked, relative to sequential. Colours and labels are those
// of tools/plot_t3.py (Okabe-Ito per mode; a mode it leaves out takes its first fallback colour,
// Tol's #332288), with Tol's muted pair for the two time parts. Coordinates are printed with one
// decimal, so the files are byte-identical run to run.
#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "studies/reproduce_study.h"

namespace t3sim::studies {
namespace {

using system::Mode;

struct Style {
  const char* color;
  const char* label;
};

// The colours and labels of tools/plot_t3.py; a mode without one gets the fallback colour and its
// name as label.
Style style(Mode m) {
  static constexpr std::array<std::tuple<std::string_view, const char*, const char*>, 9> kStyles{{
      {"sequential", "#999999", "Sequential"},
      {"ideal", "#009E73", "Ideal GEMM-RS overlap"},
      {"ideal-nmc", "#56B4E9", "Ideal RS + NMC"},
      {"t3", "#E69F00", "T3"},
      {"t3-mca", "#0072B2", "T3-MCA"},
      {"cu-split", "#CC79A7", "CU split"},
      {"decomposed", "#D55E00", "Decomposed"},
      {"t3-direct", "#F0E442", "T3 direct"},
      {"t3-nvls", "#332288", "T3 NVLS"},
  }};
  const std::string_view name = system::to_string(m);
  for (const auto& [n, color, label] : kStyles) {
    if (n == name) return {color, label};
  }
  return {"#DDCC77", name.data()};
}

constexpr double kLeft = 70, kTop = 60, kPlotH = 300, kBottom = 90, kRight = 20;

std::string text(double x, double y, const std::string& s, const char* anchor = "middle",
                 double size = 11, double rotate = 0) {
  std::string t =
      fmt::format(R"svg(<text x="{:.1f}" y="{:.1f}" font-size="{:.1f}" text-anchor="{}")svg", x, y,
                  size, anchor);
  if (rotate != 0)
    t += fmt::format(R"svg( transform="rotate({:.1f} {:.1f} {:.1f})")svg", rotate, x, y);
  return t + ">" + s + "</text>\n";
}

std::string rect(double x, double y, double w, double h, const char* fill) {
  return fmt::format(
      R"svg(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" stroke="black" )svg"
      R"svg(stroke-width="0.3"/>)svg"
      "\n",
      x, y, w, std::max(h, 0.0), fill);
}

// A y axis from lo to hi with about six gridlines; returns the pixel of value v.
struct Axis {
  double lo, hi, step;
  double y(double v) const { return kTop + kPlotH * (hi - v) / (hi - lo); }
};

Axis make_axis(double lo, double hi) {
  lo = std::min(0.0, lo);
  hi = std::max(hi, lo + 1);
  const double raw = (hi - lo) / 6;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
  return {std::floor(lo / step) * step, std::ceil(hi * 1.05 / step) * step, step};
}

std::string frame(double width, const Axis& a, const std::string& title, const std::string& ylab) {
  const double h = kTop + kPlotH + kBottom;
  std::string s =
      fmt::format(R"svg(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" )svg"
                  R"svg(viewBox="0 0 {:.0f} {:.0f}" font-family="sans-serif">)svg"
                  "\n"
                  R"svg(<rect width="100%" height="100%" fill="white"/>)svg"
                  "\n",
                  width, h, width, h);
  s += text(width / 2, 20, title, "middle", 13);
  for (double v = a.lo; v <= a.hi + a.step / 2; v += a.step) {
    s += fmt::format(
        R"svg(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#bbbbbb" )svg"
        R"svg(stroke-dasharray="2,2" stroke-width="0.5"/>)svg"
        "\n",
        kLeft, a.y(v), width - kRight, a.y(v));
    s += text(kLeft - 6, a.y(v) + 4, fmt::format("{:g}", v), "end", 10);
  }
  s += fmt::format(
      R"svg(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="black" stroke-width="0.8"/>)svg"
      "\n",
      kLeft, a.y(0), width - kRight, a.y(0));
  s += text(18, kTop + kPlotH / 2, ylab, "middle", 11, -90);
  return s;
}

std::string legend(double x, double y, const std::vector<Style>& items) {
  std::string s;
  for (const auto& it : items) {
    s += rect(x, y - 9, 10, 10, it.color);
    s += text(x + 14, y, it.label, "start", 10);
    x += 24 + 6.2 * static_cast<double>(std::string(it.label).size());
  }
  return s;
}

}  // namespace

std::string speedup_svg(const Reproduction& rep, const StudyTables& t) {
  std::vector<Mode> modes;
  for (Mode m : t.modes) {
    if (m != Mode::kSequential) modes.push_back(m);
  }
  const double bar = 7, group = bar * static_cast<double>(modes.size()) + 14;
  const size_t groups_per_system = t.sublayers.size() + 1;  // + the system's geomean
  const double sys_w = group * static_cast<double>(groups_per_system) + 16;
  const double width = kLeft + sys_w * static_cast<double>(t.systems.size()) + kRight;
  double lo = 0, hi = 1;
  for (const auto& [k, cells] : t.by_sublayer) {
    for (const auto& [m, c] : cells) {
      lo = std::min(lo, c.geomean_pct());
      hi = std::max(hi, c.geomean_pct());
    }
  }
  const Axis a = make_axis(lo, hi);
  std::string s =
      frame(width, a, rep.exp.name + ": sublayer speedup over sequential, geomean over models",
            "Speedup over sequential (%)");
  std::vector<Style> items;
  for (Mode m : modes) items.push_back(style(m));
  s += legend(kLeft, 42, items);
  for (size_t si = 0; si < t.systems.size(); ++si) {
    const std::string& sys = t.systems[si];
    const double x0 = kLeft + sys_w * static_cast<double>(si) + 8;
    for (size_t g = 0; g < groups_per_system; ++g) {
      const bool geo = g == t.sublayers.size();
      const auto& cells = geo ? t.by_system.at(sys) : t.by_sublayer.at({sys, t.sublayers[g]});
      const double gx = x0 + group * static_cast<double>(g) + 7;
      for (size_t mi = 0; mi < modes.size(); ++mi) {
        const auto it = cells.find(modes[mi]);
        if (it == cells.end()) continue;
        const double v = it->second.geomean_pct();
        const double y = a.y(std::max(v, 0.0));
        s += rect(gx + bar * static_cast<double>(mi), y, bar, std::fabs(a.y(v) - a.y(0)),
                  style(modes[mi]).color);
      }
      s += text(gx + bar * static_cast<double>(modes.size()) / 2, kTop + kPlotH + 14,
                geo ? "geomean" : t.sublayers[g], "middle", 10);
    }
    s += fmt::format(
        R"svg(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="black" stroke-width="0.8"/>)svg"
        "\n",
        x0 + 4, kTop + kPlotH + 22, x0 + sys_w - 20, kTop + kPlotH + 22);
    s += text(x0 + (sys_w - 16) / 2, kTop + kPlotH + 38,
              "<tspan font-weight=\"bold\">" + sys + "</tspan>");
  }
  return s + "</svg>\n";
}

std::string breakdown_svg(const Reproduction& rep, const StudyTables& t) {
  const double bar = 16, sys_w = bar * 1.4 * static_cast<double>(t.modes.size()) + 30;
  const double width = kLeft + sys_w * static_cast<double>(t.systems.size()) + kRight;
  double hi = 100;
  for (const auto& [sys, cells] : t.by_system) {
    for (const auto& [m, c] : cells) hi = std::max(hi, 100 * c.total_us / c.seq_total_us);
  }
  const Axis a = make_axis(0, hi);
  std::string s =
      frame(width, a, rep.exp.name + ": where the time goes (sum over each system's points)",
            "% of sequential time");
  s += legend(kLeft, 42, {{"#332288", "GEMM"}, {"#CC6677", "Exposed communication (RS + AG)"}});
  for (size_t si = 0; si < t.systems.size(); ++si) {
    const std::string& sys = t.systems[si];
    const double x0 = kLeft + sys_w * static_cast<double>(si) + 15;
    size_t mi = 0;
    for (Mode m : t.modes) {
      const auto it = t.by_system.at(sys).find(m);
      const double x = x0 + bar * 1.4 * static_cast<double>(mi++);
      if (it == t.by_system.at(sys).end()) continue;
      const StudyCell& c = it->second;
      const double g = 100 * c.gemm_us / c.seq_total_us, e = 100 * c.exposed_us / c.seq_total_us;
      s += rect(x, a.y(g), bar, a.y(0) - a.y(g), "#332288");
      s += rect(x, a.y(g + e), bar, a.y(g) - a.y(g + e), "#CC6677");
      s += fmt::format(R"svg(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="4" fill="{}"/>)svg"
                       "\n",
                       x, kTop + kPlotH + 2, bar, style(m).color);
      s += text(x + bar / 2, kTop + kPlotH + 12, std::string(system::to_string(m)), "end", 9, -45);
    }
    s += text(x0 + (sys_w - 30) / 2, kTop + kPlotH + kBottom - 8,
              "<tspan font-weight=\"bold\">" + sys + "</tspan>");
  }
  return s + "</svg>\n";
}

}  // namespace t3sim::studies
