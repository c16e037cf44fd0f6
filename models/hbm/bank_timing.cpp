#include "models/hbm/bank_timing.h"

#include <algorithm>

namespace t3sim::hbm {

void BankTiming::declare(Params& p) {
  using K = ParamKind;
  p.optional("banks", K::kInt, 16, "bank fidelity: banks per channel").range(1, 1024);
  p.optional("row", K::kBytes, "2 KiB", "bank fidelity: row (page) size per bank").at_least(32);
  p.optional("tRCD", K::kDuration, "14 ns", "bank fidelity: ACT to column command");
  p.optional("tRP", K::kDuration, "14 ns", "bank fidelity: PRECHARGE to ACT");
  p.optional("tRAS", K::kDuration, "33 ns", "bank fidelity: ACT to PRECHARGE");
  p.optional("tRRD", K::kDuration, "4 ns", "bank fidelity: ACT to ACT, different banks");
  p.optional("tCCD", K::kDuration, "1 ns", "bank fidelity: column to column (per 32 B access)");
  p.optional("tWR", K::kDuration, "12 ns", "bank fidelity: write recovery before PRECHARGE");
  p.optional("tWTR", K::kDuration, "6 ns", "bank fidelity: write to read bus turnaround");
  p.optional("tRTW", K::kDuration, "15 ns", "bank fidelity: read to write bus turnaround");
  p.optional("tRFC", K::kDuration, "350 ns", "bank fidelity: refresh cycle time");
  p.optional("tREFI", K::kDuration, "3900 ns", "bank fidelity: refresh interval").at_least(1);
}

BankTiming BankTiming::bind(const BoundParams& b) {
  BankTiming t;
  t.banks = static_cast<uint32_t>(b.integer("banks"));
  t.row = b.bytes("row");
  t.tRCD = b.duration("tRCD");
  t.tRP = b.duration("tRP");
  t.tRAS = b.duration("tRAS");
  t.tRRD = b.duration("tRRD");
  t.tCCD = b.duration("tCCD");
  t.tWR = b.duration("tWR");
  t.tWTR = b.duration("tWTR");
  t.tRTW = b.duration("tRTW");
  t.tRFC = b.duration("tRFC");
  t.tREFI = b.duration("tREFI");
  return t;
}

BankSet::BankSet(const BankTiming& t, uint32_t channels, uint64_t interleave, const PimUnit* pim)
    : t_(t), channels_(channels), interleave_(interleave), pim_(pim), banks_(t.banks) {
  if (pim_ != nullptr) alu_free_.assign(t.banks / pim_->banks_per_alu, Tick{});
}

bool BankSet::row_hit(uint64_t addr) const {
  const uint64_t chunk = local(addr) / t_.row.count();
  return banks_[chunk % t_.banks].row == chunk / t_.banks;
}

// PRECHARGE (if another row is open) and ACT as early as the bank and tRRD allow.
Tick BankSet::open(Bank& b, uint64_t row, Tick earliest) {
  Tick act = earliest;
  if (b.row != kClosed) act = max(earliest, b.pre_ok) + t_.tRP;
  if (any_act_) act = max(act, last_act_ + t_.tRRD);
  last_act_ = act;
  any_act_ = true;
  b.row = row;
  b.col_ok = act + t_.tRCD;
  b.pre_ok = act + t_.tRAS;
  return b.col_ok;
}

Tick BankSet::update_in_bank(uint32_t index, Tick ready, Tick operand_in, uint64_t n,
                             Bandwidth nmc_bank) {
  Bank& b = banks_[index];
  if (pim_ == nullptr) {  // bandwidth model: the RMW follows the data; PRECHARGE waits for it
    const Tick rmw = operand_in + transfer_time(Bytes(n), nmc_bank);
    b.pre_ok = max(b.pre_ok, rmw + t_.tWR);
    return rmw;
  }
  // PIM unit: read the old data, wait for the operand and the shared ALU, write the sum back.
  const Duration columns = t_.tCCD * ((n + 31) / 32);
  Tick& alu = alu_free_[index / pim_->banks_per_alu];
  const Tick start = max(max(ready + columns, operand_in), alu);
  alu = start + pim_->issue_time(n);
  const Tick written = start + pim_->op_time(n) + columns;
  b.col_ok = max(b.col_ok, written + t_.tWR);  // the bank is held until write recovery
  b.pre_ok = max(b.pre_ok, written + t_.tWR);
  return written;
}

BankPlan BankSet::plan(const common::MemRequest& r, uint64_t offset, uint64_t len, Tick earliest,
                       Bandwidth bus, Bandwidth nmc_bank, bool nmc) {
  saved_.banks = banks_;  // assigned field by field: the vectors keep their capacity
  saved_.alu_free = alu_free_;
  saved_.last_act = last_act_;
  saved_.any_act = any_act_;
  saved_.r = r;
  saved_.offset = offset;
  saved_.earliest = earliest;
  saved_.bus = bus;
  saved_.nmc_bank = nmc_bank;
  saved_.nmc = nmc;
  BankPlan p{earliest, earliest, earliest};
  const bool writes = r.cmd != common::MemCmd::kRead;
  uint64_t a = local(r.addr) + offset;
  Tick cursor = earliest;
  bool first = true;
  while (len > 0) {
    const uint64_t chunk = a / t_.row.count();
    const uint64_t n = std::min(len, t_.row.count() - a % t_.row.count());
    const auto index = static_cast<uint32_t>(chunk % t_.banks);
    Bank& b = banks_[index];
    const uint64_t row = chunk / t_.banks;
    const bool hit = b.row == row;
    const Tick ready = hit ? max(earliest, b.col_ok) : open(b, row, earliest);
    p.activations += hit ? 0 : 1;
    const Tick slot = max(cursor, ready);
    if (first) {
      p.data_start = slot;
      p.first_hit = hit;
      first = false;
    }
    const Duration xfer = std::max(transfer_time(Bytes(n), bus), t_.tCCD * ((n + 31) / 32));
    cursor = slot + xfer;
    b.pre_ok = max(b.pre_ok, writes ? cursor + t_.tWR : cursor);
    if (nmc && r.cmd == common::MemCmd::kUpdate) {
      p.nmc_done = max(p.nmc_done, update_in_bank(index, ready, cursor, n, nmc_bank));
    }
    a += n;
    len -= n;
  }
  p.data_end = cursor;
  p.nmc_done = max(p.nmc_done, p.data_end);
  return p;
}

bool BankSet::prepare(uint64_t addr, Tick earliest) {
  const uint64_t chunk = local(addr) / t_.row.count();
  Bank& b = banks_[chunk % t_.banks];
  if (b.row == chunk / t_.banks) return false;
  open(b, chunk / t_.banks, earliest);
  return true;
}

void BankSet::truncate(uint64_t served) {
  banks_ = saved_.banks;
  alu_free_ = saved_.alu_free;
  last_act_ = saved_.last_act;
  any_act_ = saved_.any_act;
  if (served == 0) return;
  const Saved s = saved_;
  plan(s.r, s.offset, served, s.earliest, s.bus, s.nmc_bank, s.nmc);
}

}  // namespace t3sim::hbm
