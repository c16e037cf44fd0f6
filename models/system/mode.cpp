// The mode table: one row per execution mode, each written in its own file under modes/ (see
// mode.h). Adding a mode is its file plus its two lines here: the declaration and the row.
#include "models/system/mode.h"

#include <string>

#include "sim/errors.h"

namespace t3sim::system {

// The rows (modes/<name>.cpp). The named handles of mode.h come first, in their order.
ModeSpec sequential_mode();
ModeSpec ideal_mode();
ModeSpec ideal_nmc_mode();
ModeSpec t3_mode();
ModeSpec t3_mca_mode();
ModeSpec cu_split_mode();
ModeSpec decomposed_mode();
ModeSpec t3_direct_mode();
ModeSpec t3_nvls_mode();
ModeSpec sequential_nmc_mode();

namespace {

// Sets each row's handle to its position (a Mode holds a uint8_t).
std::vector<ModeSpec> numbered(std::vector<ModeSpec> rows) {
  if (rows.size() > 256) throw ModelError("system", "the mode table has more than 256 rows");
  for (size_t i = 0; i < rows.size(); ++i) rows[i].mode = Mode{static_cast<uint8_t>(i)};
  return rows;
}

}  // namespace

std::span<const ModeSpec> mode_table() {
  static const std::vector<ModeSpec> kModes = numbered({
      sequential_mode(),
      ideal_mode(),
      ideal_nmc_mode(),
      t3_mode(),
      t3_mca_mode(),
      cu_split_mode(),
      decomposed_mode(),
      t3_direct_mode(),
      t3_nvls_mode(),
      sequential_nmc_mode(),
  });
  return kModes;
}

const ModeSpec& mode_spec(Mode m) {
  const auto table = mode_table();
  if (m.row >= table.size()) {
    throw ModelError("system", "mode " + std::to_string(m.row) + " has no table row");
  }
  return table[m.row];
}

std::string_view to_string(Mode m) {
  const auto table = mode_table();
  return m.row < table.size() ? table[m.row].name : "?";
}

std::optional<Mode> parse_mode(std::string_view name) {
  for (const auto& row : mode_table()) {
    if (row.name == name) return row.mode;
  }
  return std::nullopt;
}

std::vector<Mode> all_modes() {
  std::vector<Mode> v;
  for (const auto& row : mode_table()) v.push_back(row.mode);
  return v;
}

std::vector<std::string_view> mode_names() {
  std::vector<std::string_view> v;
  for (const auto& row : mode_table()) v.push_back(row.name);
  return v;
}

std::string mode_list(std::string_view sep) {
  std::string s;
  for (const auto& row : mode_table()) {
    if (!s.empty()) s += sep;
    s += row.name;
  }
  return s;
}

}  // namespace t3sim::system
