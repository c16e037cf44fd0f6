// `t3sim modes` text (models/system/mode_notes.h): every mode of the table has a paragraph and a
// bound, every note names a mode of the table in table order, and the notes say why t3 can beat
// "ideal" and what sequential-nmc isolates.
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
    ASSERT_NE(n, nullptr) << "fill the row's paragraph and bound (models/system/modes/)";
    EXPECT_EQ(n->paragraph, row.paragraph);
    EXPECT_EQ(n->bound, row.bound);
    EXPECT_GT(n->paragraph.size(), 100u);
    EXPECT_GT(n->bound.size(), 20u);
  }
}

TEST(ModeNotes, EveryNoteNamesAModeInTableOrder) {
  const auto notes = mode_notes();
  ASSERT_EQ(notes.size(), mode_table().size());
  for (size_t i = 0; i < notes.size(); ++i) {
    EXPECT_TRUE(parse_mode(notes[i].mode).has_value()) << notes[i].mode;
    EXPECT_EQ(notes[i].mode, mode_table()[i].name);
  }
}

TEST(ModeNotes, SequentialNmcSaysWhatItIsolates) {
  const ModeNote* n = mode_note("sequential-nmc");
  ASSERT_NE(n, nullptr);
  EXPECT_NE(std::string(n->paragraph).find("without overlap"), std::string::npos);
  EXPECT_NE(std::string(n->bound).find("Upper bound for t3"), std::string::npos);
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
