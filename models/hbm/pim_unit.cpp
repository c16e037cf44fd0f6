#include "models/hbm/pim_unit.h"

namespace t3sim::hbm {

void PimUnit::declare(Params& p) {
  using K = ParamKind;
  p.optional("nmc_timing", K::kString, "bandwidth",
             "bank fidelity, update nmc: how long a bank's read-modify-write takes; bandwidth: "
             "nmc_bandwidth / (channels x banks) per bank; pim: the PIM unit's pim_* keys "
             "(ACT + column reads + ALU + column writes + tWR on the bank)")
      .one_of({"bandwidth", "pim"});
  p.optional("pim_banks_per_alu", K::kInt, 2,
             "nmc_timing pim: neighbouring banks that share one PIM ALU (must divide banks)")
      .range(1, 1024);
  p.optional("pim_alu_width", K::kBytes, "32 B",
             "nmc_timing pim: bytes the PIM ALU takes per ALU clock cycle (lanes x element size)")
      .at_least(1);
  p.optional("pim_alu_clock", K::kFrequency, "300 MHz", "nmc_timing pim: PIM ALU clock")
      .at_least(1);
  p.optional("pim_alu_pipeline_cycles", K::kInt, 3,
             "nmc_timing pim: ALU pipeline depth in ALU clock cycles (first operand in to first "
             "result out)")
      .range(0, 1024);
}

bool PimUnit::selected(const BoundParams& b) { return b.str("nmc_timing") == "pim"; }

PimUnit PimUnit::bind(const BoundParams& b) {
  PimUnit u;
  u.banks_per_alu = static_cast<uint32_t>(b.integer("pim_banks_per_alu"));
  u.width = b.bytes("pim_alu_width");
  u.clock = b.frequency("pim_alu_clock");
  u.pipeline_cycles = static_cast<uint32_t>(b.integer("pim_alu_pipeline_cycles"));
  return u;
}

}  // namespace t3sim::hbm
