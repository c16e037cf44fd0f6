// Bounds on one collective's schedule (schedule.h). A schedule holds every simulated GPU's slices
// (an op of 48 B, its connection list and the executor's state per op: about 60 B), so a ring
// all-reduce on n GPUs stores about 2n(n-1) x channels ops unfolded, and any collective stores
// S / chunk ops per lane: 2^49 B or 8192 GPUs would take tens of GB. Generators count what they
// will emit before they emit it where they can (the ring; every generator's loops), and the
// builder counts as it goes, so a schedule past a bound is refused before the run, never ends in
// std::bad_alloc, and no op id (32 bits) wraps. Contract: ScheduleTooLarge is a ConfigError whose
// need() says what was asked for; Collective names the collective and the fix.
#pragma once

#include <cstdint>
#include <string>

#include "sim/errors.h"

namespace t3sim::collectives {

// Stored slices (memory: about 1 GB at the bound) and generated chunk operations (time: a
// folded schedule checks every GPU's chunks and keeps only the representatives').
inline constexpr uint64_t kMaxScheduleOps = uint64_t{1} << 24;
inline constexpr uint64_t kMaxScheduleChunks = uint64_t{1} << 28;
// The buffer size S times the GPUs simulated (1 or node 0's when folded): events grow with the
// bytes each simulated GPU moves (about 1 KB per event), so 2^39 B is about 5e8 events, minutes.
inline constexpr uint64_t kMaxSimulatedBytes = uint64_t{1} << 39;

class ScheduleTooLarge : public ConfigError {
 public:
  ScheduleTooLarge(std::string file, std::string pointer, std::string need, const std::string& fix)
      : ConfigError(std::move(file), std::move(pointer), need + "; " + fix),
        need_(std::move(need)) {}
  const std::string& need() const { return need_; }

 private:
  std::string need_;
};

// a x b, saturated at UINT64_MAX.
uint64_t saturating_mul(uint64_t a, uint64_t b);
// Throws ScheduleTooLarge (its file and pointer left for Collective) when `stored_ops` slices or
// `chunks` generated chunk operations pass the bounds.
void check_schedule_size(uint64_t stored_ops, uint64_t chunks);
// Throws ScheduleTooLarge when `bytes` x `gpus` passes kMaxSimulatedBytes.
void check_simulated_bytes(uint64_t bytes, uint64_t gpus);

}  // namespace t3sim::collectives
