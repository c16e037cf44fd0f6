#include "models/system/mode_notes.h"

#include <vector>

#include "models/system/mode.h"

namespace t3sim::system {

std::span<const ModeNote> mode_notes() {
  static const std::vector<ModeNote> kNotes = [] {
    std::vector<ModeNote> v;
    for (const ModeSpec& row : mode_table()) {
      if (!row.paragraph.empty()) v.push_back({row.name, row.paragraph, row.bound});
    }
    return v;
  }();
  return kNotes;
}

const ModeNote* mode_note(std::string_view mode) {
  for (const auto& n : mode_notes()) {
    if (n.mode == mode) return &n;
  }
  return nullptr;
}

}  // namespace t3sim::system
