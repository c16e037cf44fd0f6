// The progress line (tools/cli/progress.h): shown only on a terminal without --quiet, and its text
// (points done, share, rate, ETA; rate from the points run now, so a resumed sweep's ETA is right).
#include "cli/progress.h"

#include <gtest/gtest.h>

namespace t3sim::cli {
namespace {

TEST(Progress, ShownOnlyOnATerminalWithoutQuiet) {
  EXPECT_TRUE(progress_shown(true, false));
  EXPECT_FALSE(progress_shown(true, true));
  EXPECT_FALSE(progress_shown(false, false));
  EXPECT_FALSE(progress_shown(false, true));
}

TEST(Progress, FormatsDoneRateAndEta) {
  EXPECT_EQ(format_progress("sweep", "points", 0, 40, 0, 0.0), "[sweep] 0/40 points (0%)");
  EXPECT_EQ(format_progress("sweep", "points", 10, 40, 10, 2.0),
            "[sweep] 10/40 points (25%) 5.0 points/s ETA 6 s");
  EXPECT_EQ(format_progress("reproduce", "runs", 207, 207, 207, 6.4),
            "[reproduce] 207/207 runs (100%) 32.3 runs/s done in 6 s");
}

TEST(Progress, RateCountsOnlyThePointsRunNow) {
  // A resumed sweep: 90 of 100 were done before; 5 ran in 10 s, so 5 more take 10 s.
  EXPECT_EQ(format_progress("sweep", "points", 95, 100, 5, 10.0),
            "[sweep] 95/100 points (95%) 0.5 points/s ETA 10 s");
}

TEST(Progress, LongEtasUseMinutesAndHours) {
  EXPECT_EQ(format_progress("sweep", "points", 1, 1001, 1, 1.0),
            "[sweep] 1/1001 points (0%) 1.0 points/s ETA 16 min 40 s");
  EXPECT_EQ(format_progress("sweep", "points", 1, 100001, 1, 1.0),
            "[sweep] 1/100001 points (0%) 1.0 points/s ETA 27.8 h");
}

}  // namespace
}  // namespace t3sim::cli
