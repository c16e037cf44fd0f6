#include "models/collectives/schedule_limits.h"

#include <limits>

namespace t3sim::collectives {

uint64_t saturating_mul(uint64_t a, uint64_t b) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) {
    return std::numeric_limits<uint64_t>::max();
  }
  return a * b;
}

void check_schedule_size(uint64_t stored_ops, uint64_t chunks) {
  const auto number = [](uint64_t v) {
    return v == std::numeric_limits<uint64_t>::max() ? std::string("over 2^64") : std::to_string(v);
  };
  if (stored_ops > kMaxScheduleOps) {
    throw ScheduleTooLarge("", "",
                           "its schedule would hold " + number(stored_ops) + " slices, over the " +
                               std::to_string(kMaxScheduleOps) + " t3sim simulates (about 1 GB)",
                           "");
  }
  if (chunks > kMaxScheduleChunks) {
    throw ScheduleTooLarge("", "",
                           "its schedule would take " + number(chunks) +
                               " chunk operations to lay out, over the " +
                               std::to_string(kMaxScheduleChunks) + " t3sim builds",
                           "");
  }
}

void check_simulated_bytes(uint64_t bytes, uint64_t gpus) {
  if (saturating_mul(bytes, gpus) <= kMaxSimulatedBytes) return;
  throw ScheduleTooLarge("", "",
                         "its run would move " + std::to_string(bytes) + " B on each of " +
                             std::to_string(gpus) + " simulated GPUs, over the 2^39 B x GPUs " +
                             "t3sim simulates in one run (about 5e8 events)",
                         "");
}

}  // namespace t3sim::collectives
