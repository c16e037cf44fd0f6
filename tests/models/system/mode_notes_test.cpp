// `t3sim modes` text (models/system/mode_notes.h): every mode of the table has a paragraph and a
// bound, every note names a mode of the table, and the notes say why t3 can beat "ideal".
#include "models/system/mode_notes.h"

#include <gtest/gtest.h>

#include <string>

#include "models/system/mode.h"

namespace t3sim::system {
namespace {

TEST(ModeNotes, EveryModeHasAParagraphAndABound) {
  for (const ModeSpec& row : mode_table()) {
    SCOPED_TRACE(std::string(row.name));
    const ModeNote* n = mode_note(row.name);
    ASSERT_NE(n, nullptr) << "add a note to models/system/mode_notes.cpp";
    EXPECT_GT(n->paragraph.size(), 100u);
    EXPECT_GT(n->bound.size(), 20u);
  }
}

TEST(ModeNotes, EveryNoteNamesAMode) {
  for (const ModeNote& n : mode_notes()) EXPECT_TRUE(parse_mode(n.mode).has_value()) << n.mode;
}

TEST(ModeNotes, IdealSaysWhyT3CanBeatIt) {
  const std::string bound(mode_note("ideal")->bound);
  EXPECT_NE(bound.find("can finish before ideal"), std::string::npos);
  EXPECT_NE(bound.find("ideal-nmc"), std::string::npos);
  EXPECT_NE(std::string(mode_note("sequential")->bound).find("Upper bound"), std::string::npos);
  EXPECT_NE(std::string(mode_note("ideal")->bound).find("Lower bound"), std::string::npos);
}

}  // namespace
}  // namespace t3sim::system
