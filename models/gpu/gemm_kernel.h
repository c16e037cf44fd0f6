// GemmKernel: one GEMM launch on one GPU as a grid of workgroup (WG) tiles dispatched to CU slots
// in waves. Each WG streams its K loop in `k_phases` phases: a phase computes once its A and B
// slices are in (L2 hit, merged with another WG's fetch, or fetched from HBM as gemm_read
// requests), with `prefetch_phases` phases requested ahead; a phase's compute time is the tile's
// FLOPs / (matrix FLOP per CU-cycle x efficiency). After the last phase the WG keeps its CU for
// `wg_overhead` (the pipeline fill and drain a real kernel pays per tile, lumped), then stores the
// output tile where the plan's output address map says (local WRITE/UPDATE or remote UPDATE). So
// DRAM contention slows the GEMM by stalling phases. Edge tiles compute as full tiles.
// Split-K (split_k = s > 1, baseline plans only): a tile is s adjacent WGs, each over 1/s of K;
// all but the last to finish write an FP32 partial tile (gemm_write) and leave; the last waits
// for them, reads the s-1 partials back (gemm_read) and stores the tile: (s-1) x tile x 4 B extra
// written and read per tile, outside the L2 model. A `retile` plan is re-planned at launch per
// the preset's tile_select (tile_select.h).
// Contract: hooks->admit() may refuse a tile (tracker full); the kernel then waits for
// admit_retry(); admit() and tile_computed() are called once per output tile. done() is set when
// every tile's store has completed.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/gpu/gemm_plan.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/l2_cache.h"
#include "models/gpu/mem_stream.h"
#include "models/gpu/remote_memory.h"
#include "sim/component.h"

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
  void access_done(uint64_t tag) override;
  void slice_ready(uint32_t waiter) override;
  void finish() override;

 private:
  struct Wg {
    uint32_t tile = 0;
    uint32_t split = 0;         // which 1/split_k of K this WG computes
    uint32_t next_request = 0;  // next phase whose slices to request
    uint32_t next_compute = 0;  // next phase to compute
    bool computing = false;
    bool busy = false;
    Tick started{};
  };
  static constexpr uint64_t kStoreTag = 1ULL << 63;    // | tile: final tile store done
  static constexpr uint64_t kPartialTag = 1ULL << 62;  // | tile: split-K partial store done
  static constexpr uint64_t kReduceTag = 1ULL << 61;   // | wg: reduction read done
  static constexpr uint32_t kNoWg = 0xffffffffu;
  void configure();
  void begin(uint64_t unused);
  void dispatch();
  void request_phase(uint32_t wg, uint32_t phase);
  void try_compute(uint32_t wg);
  void phase_done(uint64_t wg);
  void k_loop_done(uint64_t wg);
  void split_done(uint32_t wg);
  void reduce(uint32_t wg);
  void release(uint32_t wg);
  void store(uint32_t wg);
  uint32_t phases_total() const { return spec_.k_phases * plan_.split_k; }
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
  SliceCache l2_;
  std::vector<Wg> wgs_;
  std::vector<uint8_t> ready_;  // per (wg, phase): slices arrived (0..2)
  std::vector<uint32_t> free_wgs_;
  std::vector<uint32_t> splits_left_;   // per tile: splits whose K loop is not done (split-K)
  std::vector<uint32_t> partials_out_;  // per tile: partial stores in flight
  std::vector<uint32_t> reducer_;       // per tile: the WG waiting to reduce, or kNoWg
  Duration phase_time_;
  size_t next_tile_ = 0;
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
};

}  // namespace t3sim::gpu
