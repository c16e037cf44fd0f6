// Bank-level timing of one HBM channel ("fidelity": "bank"): banks with one open row each, and the
// JEDEC-style constraints that decide when a request's data can move. Fidelity: a request is cut
// into row-sized chunks; consecutive chunks of a channel's address space go to consecutive banks
// (row-granular bank interleave; Appendix A's map also interleaves one bank bit at 256 B, which
// t3sim does not), so a streaming request activates banks ahead of its data and hides tRCD/tRP
// behind the previous chunk's transfer unless a bank is still busy (tRAS, write recovery, a
// conflicting row); the controller also opens ahead the rows of the next queued requests (the
// first request per bank among the next kLookahead of each sub-queue). ACTs
// obey tRRD (tFAW is not modelled); columns obey tCCD per 32 B atom; the
// bus runs at peak x (1 - tRFC/tREFI) per channel (refresh as a derate); read->write waits tRTW,
// write->read tWTR. An NMC UPDATE moves its data over the bus, then each chunk's bank performs the
// read-modify-write: with a PIM unit (pim_unit.h) the bank is held for its column reads, the
// shared ALU, its column writes and tWR, so any later access to it waits; without one the RMW runs
// at nmc_bandwidth / (channels x banks) and only the bank's PRECHARGE waits (tWR after it).
// Sources: t3-paper.md Appendix A (HBM2 1 GHz set), JESD235/JESD238 structure; values in presets.
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/memory.h"
#include "models/hbm/pim_unit.h"
#include "sim/params.h"
#include "sim/units.h"

namespace t3sim::hbm {

struct BankTiming {
  uint32_t banks = 16;
  Bytes row{2048};
  Duration tRCD = Duration::ns(14);
  Duration tRP = Duration::ns(14);
  Duration tRAS = Duration::ns(33);
  Duration tRRD = Duration::ns(4);
  Duration tCCD = Duration::ns(1);  // per 32 B column access
  Duration tWR = Duration::ns(12);
  Duration tWTR = Duration::ns(6);
  Duration tRTW = Duration::ns(15);
  Duration tRFC = Duration::ns(350);
  Duration tREFI = Duration::ns(3900);

  static void declare(Params& p);
  static BankTiming bind(const BoundParams& b);
};

// When one segment of a request moves its data.
struct BankPlan {
  Tick data_start;  // first byte on the bus
  Tick data_end;    // last byte on the bus
  Tick nmc_done;    // last in-bank read-modify-write done (UPDATE with NMC; else data_end)
  uint32_t activations = 0;
  bool first_hit = false;  // the first chunk found its row open
};

// The banks of one channel. Contract: addresses are the Hbm's (global) addresses; `channels` and
// `interleave` are the Hbm's, used to form the channel-local address; `pim` (may be null: the
// bandwidth model) outlives the set and its banks_per_alu divides t.banks.
class BankSet {
 public:
  BankSet(const BankTiming& t, uint32_t channels, uint64_t interleave,
          const PimUnit* pim = nullptr);
  // Whether the chunk holding `addr` has its row open.
  bool row_hit(uint64_t addr) const;
  // Plans moving bytes [offset, offset + len) of `r` with the bus free from `earliest`, and
  // commits the banks' new state. `nmc_bank` = one bank's RMW throughput (UPDATE with NMC and
  // no PIM unit).
  BankPlan plan(const common::MemRequest& r, uint64_t offset, uint64_t len, Tick earliest,
                Bandwidth bus, Bandwidth nmc_bank, bool nmc);
  // Opens, ahead of its data, the row that `addr` needs (PRECHARGE and ACT as early as the bank
  // and tRRD allow, not before `earliest`), as a controller does for queued requests; no-op on a
  // hit. Part of the current plan: truncate() undoes it.
  // Returns whether it issued an ACT.
  bool prepare(uint64_t addr, Tick earliest);
  uint32_t bank_of(uint64_t addr) const {
    return static_cast<uint32_t>((local(addr) / t_.row.count()) % t_.banks);
  }
  uint32_t banks() const { return t_.banks; }
  // The last plan was preempted after `served` bytes: the banks return to their state before it
  // and only the served prefix is committed (the rest is planned again when the request resumes).
  void truncate(uint64_t served);

 private:
  static constexpr uint64_t kClosed = UINT64_MAX;
  struct Bank {
    uint64_t row = kClosed;
    Tick col_ok{};  // first column command allowed (ACT + tRCD)
    Tick pre_ok{};  // first PRECHARGE allowed (tRAS, last column, write recovery)
  };
  uint64_t local(uint64_t addr) const {
    const uint64_t block = addr / interleave_;
    return (block / channels_) * interleave_ + addr % interleave_;
  }
  Tick open(Bank& b, uint64_t row, Tick earliest);
  // In-bank read-modify-write of an n-byte UPDATE chunk of bank `index` whose columns are ready at
  // `ready` and whose operand has crossed the bus by `operand_in`; returns when its last write is
  // done and commits the bank (and ALU) state.
  Tick update_in_bank(uint32_t index, Tick ready, Tick operand_in, uint64_t n, Bandwidth nmc_bank);

  BankTiming t_;
  uint32_t channels_;
  uint64_t interleave_;
  const PimUnit* pim_;
  std::vector<Bank> banks_;
  std::vector<Tick> alu_free_;  // per PIM ALU: when it takes its next chunk (PIM unit only)
  Tick last_act_{};
  bool any_act_ = false;
  struct Saved {
    std::vector<Bank> banks;
    std::vector<Tick> alu_free;
    Tick last_act;
    bool any_act;
    common::MemRequest r;
    uint64_t offset;
    Tick earliest;
    Bandwidth bus;
    Bandwidth nmc_bank;
    bool nmc;
  };
  Saved saved_;  // state before the last plan, and its arguments
};

}  // namespace t3sim::hbm
