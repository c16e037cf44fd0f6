// The near-bank processing-in-memory (PIM) unit that performs an NMC UPDATE inside a bank, as in
// published PIM DRAM parts (validation/reference/hardware.md §4): one SIMD ALU shared by
// `banks_per_alu` neighbouring banks, `width` bytes per ALU clock, a fixed pipeline depth. Used
// only with bank fidelity and "update": "nmc" when "nmc_timing" is "pim"; otherwise an UPDATE's
// in-bank read-modify-write runs at nmc_bandwidth / (channels x banks) as before.
// Fidelity: an UPDATE chunk holds its bank for ACT (if closed) + its column reads (tCCD per 32 B)
// + the ALU (pipeline depth + ceil(bytes / width) cycles, started once the old data is read and
// the operand has crossed the bus, and once the shared ALU is free) + its column writes + tWR;
// the ALU takes the next chunk ceil(bytes / width) cycles after it took this one (pipelined).
// ALU starts are not aligned to its clock edges. Values and sources live in the presets.
#pragma once

#include <cstdint>

#include "sim/params.h"
#include "sim/units.h"

namespace t3sim::hbm {

struct PimUnit {
  uint32_t banks_per_alu = 2;
  Bytes width{32};  // ALU bytes per ALU clock cycle (SIMD lanes x element size)
  Frequency clock = Frequency::mhz(300);
  uint32_t pipeline_cycles = 3;

  // Time the ALU is taken by `bytes` (issue rate); the next chunk may enter after it.
  Duration issue_time(uint64_t bytes) const { return clock.cycles(issue_cycles(bytes)); }
  // Time from the ALU taking `bytes` to the last result leaving its pipeline.
  Duration op_time(uint64_t bytes) const {
    return clock.cycles(issue_cycles(bytes) + pipeline_cycles);
  }

  // Declares "nmc_timing" and the pim_* keys.
  static void declare(Params& p);
  // Whether the config selects this unit ("nmc_timing": "pim").
  static bool selected(const BoundParams& b);
  static PimUnit bind(const BoundParams& b);

 private:
  uint64_t issue_cycles(uint64_t bytes) const {
    return (bytes + width.count() - 1) / width.count();
  }
};

}  // namespace t3sim::hbm
