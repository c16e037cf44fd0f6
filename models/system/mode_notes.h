// What each execution mode means, at more length than the mode table's help line: one paragraph
// on what runs and how, and one sentence on what the mode bounds (or why it bounds nothing).
// `t3sim modes` prints them. Contract: every row of mode_table() has a note (a test checks it);
// notes are keyed by the mode's name so that this file stays separate from the table.
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
