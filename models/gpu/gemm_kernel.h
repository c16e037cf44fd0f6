// GemmKernel: one GEMM launch on one GPU as a grid of workgroup (WG) tiles dispatched to CU slots
// in waves. Each WG streams its K loop in phases (gpu_spec.h Pipeline): with the physical
// "stages" pipeline a phase is k_group K-steps of bk, and loads run at most stages - 1 K-steps
// ahead of the math (lookahead_phases phases: the prologue requests phases [0, ahead), starting
// phase c requests up to c + ahead), as a CUTLASS/Tensile multistage main loop; the legacy
// "phases" pipeline uses k_phases phases with prefetch_phases ahead. A phase computes once its A
// and B slices are in: an L2 hit (with the memory-partition front end, a hit request served by
// the L2 slice, which a full slice refuses), merged with another WG's fetch (delivered through
// the slice when it lands), or fetched from HBM (gemm_read). A WG keeps at most cu_inflight /
// wgs_per_cu bytes of phases outstanding. A phase's compute time is the tile's FLOPs /
// (matrix FLOP per CU-cycle x efficiency). After the last phase the WG keeps its CU for
// `wg_overhead`, then stores the output tile per the plan's output address map. Stall accounting
// per WG: fill (dispatch to first compute), compute, memory (waiting for a later phase's data),
// drain (wg_overhead). Edge tiles compute as full tiles.
// Split-K (split_k = s > 1, baseline plans only): a tile is s adjacent WGs, each over 1/s of K;
// all but the last to finish write an FP32 partial tile (gemm_write) and leave; the last waits
// for them, reads the s-1 partials back (gemm_read) and stores the tile. A `retile` plan is
// re-planned at launch per the preset's tile_select (tile_select.h).
// Grid (gpu_spec.h GemmLaunch): per_tile hands each work item (a tile split) to the next free WG
// slot in plan order. persistent launches G = min(items, cus x wgs_per_cu of the whole GPU) CTAs
// whatever launch() was given; CTA j becomes resident in CTA order when a slot is free and keeps
// it until its item list is done (static: items j, j+G, ...; dynamic: items j, j+G, ... for its
// first persistent_static_rounds items, then the next item of a shared counter), so CTAs that found
// no slot start only when a resident CTA ends its list or add_cus() gives slots back: the tail a
// persistent library GEMM suffers when another kernel holds SMs. Contract: hooks->admit() may
// refuse a tile (tracker full); the kernel then waits for admit_retry(); admit() and
// tile_computed() are called once per output tile (admit() before the tile's first split starts; a
// refused CTA does not hold back CTAs whose next item is admitted). A static persistent grid with
// split-K under a tracker that refuses until tiles complete can wait forever on a split whose CTA
// is not resident (finish() then reports it); the presets with a tracker (T3) are per_tile. done()
// is set when every tile's store has completed. add_cus() adds WG slots to a running kernel.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "models/gpu/gemm_plan.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/l2_cache.h"
#include "models/gpu/l2_residency.h"
#include "models/gpu/mem_stream.h"
#include "models/gpu/power.h"
#include "models/gpu/remote_memory.h"
#include "sim/component.h"
#include "sim/timeline.h"

namespace t3sim::gpu {

class GemmHooks {
 public:
  virtual ~GemmHooks() = default;
  virtual bool admit(uint32_t /*tile*/) { return true; }
  virtual void tile_computed(uint32_t /*tile*/) {}
  virtual void kernel_done() {}
};

class GemmKernel : public Component, public AccessDone, public SliceWaiter {
 public:
  GemmKernel(Simulator& sim, Component* parent, std::string name, int gpu, const GpuSpec& spec,
             GemmPlan plan, MemStream& reads, MemStream& stores, RemoteMemory& remote,
             GemmHooks* hooks);
  // The GPU's clock controller (power.h), before launch(): phases then run at its clock and
  // report their FLOPs to it. Without one the kernel runs at the preset's fixed clock.
  void set_clock(ClockControl* clock) { clock_ = clock; }
  // The GPU's L2 residency (l2_residency.h), before launch(): from its start to its last phase the
  // kernel's cache loses capacity to the other traffic through the L2. Without one it keeps it all.
  void set_l2_residency(L2Residency* l2) { residency_ = l2; }
  // Bytes of the kernel's cached slices that other traffic through the L2 evicted.
  uint64_t l2_displaced_bytes() const { return l2_.displaced_bytes(); }
  // Launches on `cus` CUs after the launch overhead.
  void launch(uint32_t cus);
  void admit_retry();
  bool finished() const { return done_ != Tick::max(); }
  Tick start() const { return start_; }
  Tick compute_done() const { return compute_done_; }
  Tick done() const { return done_; }
  uint64_t dram_read_bytes() const { return read_bytes_.value(); }
  uint64_t partial_bytes() const { return partial_bytes_.value(); }  // split-K partials written
  // The plan as launched (after re-tiling).
  const GemmPlan& plan() const { return plan_; }
  // Adds `cus` CUs' WG slots to a launched kernel (a collective gave its CUs back).
  void add_cus(uint32_t cus);
  // Input bytes by where they came from (L2 hit, merged onto a fetch in flight, DRAM miss).
  uint64_t l2_hit_bytes() const { return l2_.hit_bytes() + l2_.merged_bytes(); }
  uint64_t l2_miss_bytes() const { return l2_.miss_bytes(); }
  double l2_hit_rate() const;  // hit + merged bytes / all input bytes requested
  // WG time summed over WGs (ps): compute, memory (waiting for data), pipeline (fill + drain).
  uint64_t compute_ps() const { return compute_ps_.value(); }
  uint64_t memory_stall_ps() const { return memory_ps_.value(); }
  uint64_t pipeline_ps() const { return fill_ps_.value() + drain_ps_.value(); }
  uint64_t phase_stalls() const { return phase_stalls_.value(); }
  uint32_t phases_per_wg() const { return phases_; }
  // CTAs of the grid: one per item (per_tile) or G (persistent); set at launch.
  uint32_t ctas() const { return ctas_; }
  void access_done(uint64_t tag) override;
  void slice_ready(uint32_t waiter, uint32_t id, bool owner) override;
  void finish() override;

 private:
  struct Wg {
    uint32_t tile = 0;
    uint32_t split = 0;         // which 1/split_k of K this WG computes
    uint32_t next_request = 0;  // next phase whose slices to request
    uint32_t next_compute = 0;  // next phase to compute
    uint32_t unready = 0;       // requested phases whose data is not all in
    bool computing = false;
    bool busy = false;
    bool computed = false;  // has started a phase (fill is over)
    double flop_rate = 0;   // energy-weighted FLOP/s of the running phase, told to the clock
    Tick started{};
    Tick waiting_since = Tick::max();  // ready to compute but data missing (memory stall)
  };
  struct Operand {
    uint64_t addr;
    uint64_t bytes;
  };
  static constexpr uint64_t kStoreTag = 1ULL << 63;    // | tile: final tile store done
  static constexpr uint64_t kPartialTag = 1ULL << 62;  // | tile: split-K partial store done
  static constexpr uint64_t kReduceTag = 1ULL << 61;   // | wg: reduction read done
  static constexpr uint64_t kHitTag = 1ULL << 60;      // | waiter: L2 hit delivered
  static constexpr uint32_t kNoWg = 0xffffffffu;
  static constexpr uint32_t kNoCta = 0xffffffffu;
  void configure();
  void begin(uint64_t unused);
  size_t items() const { return plan_.order.size() * plan_.split_k; }
  // Items below this are taken by CTA index (all of them for a static schedule).
  size_t static_items_end() const;
  bool admit_item(size_t item);
  void dispatch();
  void dispatch_per_tile();
  void dispatch_persistent();
  void start_item(uint32_t wg, size_t item);
  void request_phase(uint32_t wg, uint32_t phase);
  void request_ahead(uint32_t wg);
  void operand_ready(uint32_t waiter, Tick at);
  void deliver_hit(uint32_t waiter, uint32_t id);
  Operand operand(uint32_t id) const;
  void try_compute(uint32_t wg);
  void phase_done(uint64_t wg);
  void k_loop_done(uint64_t wg);
  void split_done(uint32_t wg);
  void reduce(uint32_t wg);
  void release(uint32_t wg);
  void trace_wg(Timeline& tl, uint32_t w) const;
  void store(uint32_t wg);
  uint32_t phases_total() const { return phases_ * plan_.split_k; }
  uint32_t slice_id_a(uint32_t tile, uint32_t phase) const;
  uint32_t slice_id_b(uint32_t tile, uint32_t phase) const;
  uint64_t phase_k(uint32_t phase) const;
  uint64_t phase_k0(uint32_t phase) const;
  uint64_t tile_partial_bytes(uint32_t tile) const;

  int gpu_;
  GpuSpec spec_;
  GemmPlan plan_;
  MemStream& reads_;
  MemStream& stores_;
  RemoteMemory& remote_;
  GemmHooks* hooks_;
  ClockControl* clock_ = nullptr;
  L2Residency* residency_ = nullptr;
  double phase_flops_ = 0;  // FLOPs of one full-tile phase (charged to the clock controller)
  SliceCache l2_;
  std::vector<Wg> wgs_;
  std::vector<uint8_t> ready_;  // per (wg, phase): slices arrived or booked (0..2)
  std::vector<Tick> ready_at_;  // per (wg, phase): when booked L2 hits deliver the data
  std::vector<uint32_t> free_wgs_;
  std::vector<uint32_t> splits_left_;   // per tile: splits whose K loop is not done (split-K)
  std::vector<uint32_t> partials_out_;  // per tile: partial stores in flight
  std::vector<uint32_t> reducer_;       // per tile: the WG waiting to reduce, or kNoWg
  Duration phase_time_;
  uint32_t phases_ = 1;             // phases per WG (one split's K)
  uint32_t ahead_ = 1;              // phases requested ahead of compute
  uint64_t phase_limit_bytes_ = 0;  // per-WG outstanding input bound (0: none)
  bool partition_ = false;          // hits go through the L2 slices
  size_t next_tile_ = 0;  // next work item (per_tile; persistent dynamic: the shared counter)
  // Persistent grid: the CTA resident in each WG slot (kNoCta: free), each CTA's next item
  // (static), slots whose CTA wants its next item (FIFO), the next CTA to become resident, and
  // which tiles admit() has accepted (a tile's splits may start out of order).
  std::vector<uint32_t> slot_cta_;
  std::vector<uint64_t> cta_next_;
  std::deque<uint32_t> wanting_;
  std::vector<uint8_t> admitted_;
  uint32_t ctas_ = 0;
  uint32_t next_cta_ = 0;
  bool persistent_ = false;
  uint32_t stores_left_ = 0;
  uint32_t computing_left_ = 0;
  bool blocked_ = false;
  Tick start_ = Tick::max();
  Tick compute_done_ = Tick::max();
  Tick done_ = Tick::max();
  Counter read_bytes_;
  Counter tiles_;
  Counter admit_stalls_;
  Counter phase_stalls_;
  Counter partial_bytes_;
  Counter compute_ps_;
  Counter memory_ps_;
  Counter fill_ps_;
  Counter drain_ps_;
};

}  // namespace t3sim::gpu
