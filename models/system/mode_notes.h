// What each execution mode means, at more length than the mode table's help line: one paragraph
// on what runs and how, and one sentence on what the mode bounds (or why it bounds nothing).
// `t3sim modes` prints them. The text lives in each mode's row (ModeSpec::paragraph and ::bound,
// written in modes/<name>.cpp); this is the by-name view of it.
// Contract: one note per row of mode_table() whose paragraph is not empty, in table order.
#pragma once

#include <span>
#include <string_view>

namespace t3sim::system {

struct ModeNote {
  std::string_view mode;       // the name in mode_table()
  std::string_view paragraph;  // what runs, simulated or composed
  std::string_view bound;      // what it is an upper or lower bound of
};

std::span<const ModeNote> mode_notes();
// nullptr when the mode has no note.
const ModeNote* mode_note(std::string_view mode);

}  // namespace t3sim::system
