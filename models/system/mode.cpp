#include "models/system/mode.h"

#include <array>
#include <string_view>
#include <utility>

namespace t3sim::system {
namespace {
constexpr std::array<std::pair<Mode, std::string_view>, 8> kNames{{
    {Mode::kSequential, "sequential"},
    {Mode::kIdeal, "ideal"},
    {Mode::kIdealNmc, "ideal-nmc"},
    {Mode::kT3, "t3"},
    {Mode::kT3Mca, "t3-mca"},
    {Mode::kCuSplit, "cu-split"},
    {Mode::kDecomposed, "decomposed"},
    {Mode::kT3Direct, "t3-direct"},
}};
}  // namespace

std::string_view to_string(Mode m) {
  for (const auto& [mode, name] : kNames) {
    if (mode == m) return name;
  }
  return "?";
}

std::optional<Mode> parse_mode(std::string_view name) {
  for (const auto& [mode, n] : kNames) {
    if (n == name) return mode;
  }
  return std::nullopt;
}

std::vector<Mode> all_modes() {
  std::vector<Mode> v;
  for (const auto& [mode, name] : kNames) v.push_back(mode);
  return v;
}

std::vector<std::string_view> mode_names() {
  std::vector<std::string_view> v;
  for (const auto& [mode, name] : kNames) v.push_back(name);
  return v;
}

}  // namespace t3sim::system
