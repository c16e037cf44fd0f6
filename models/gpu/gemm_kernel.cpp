#include "models/gpu/gemm_kernel.h"

#include <algorithm>
#include <cmath>

#include "models/gpu/tile_select.h"
#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::gpu {

GemmKernel::GemmKernel(Simulator& sim, Component* parent, std::string name, int gpu,
                       const GpuSpec& spec, GemmPlan plan, MemStream& reads, MemStream& stores,
                       RemoteMemory& remote, GemmHooks* hooks)
    : Component(sim, parent, std::move(name)),
      gpu_(gpu),
      spec_(spec),
      plan_(std::move(plan)),
      reads_(reads),
      stores_(stores),
      remote_(remote),
      hooks_(hooks),
      l2_(spec.l2, 0, 0) {
  if (plan_.order.size() != plan_.tiles() || plan_.stores.size() != plan_.tiles()) {
    throw ModelError(path(), "GEMM plan order/stores do not cover every tile");
  }
  if (plan_.split_k == 0) throw ModelError(path(), "GEMM plan split_k must be >= 1");
  configure();
  stats().add("tiles", tiles_, "count", "output tiles computed");
  stats().add("dram_read_bytes", read_bytes_, "B", "input bytes fetched from HBM (L2 misses)");
  stats().add("admit_stalls", admit_stalls_, "count", "dispatches refused by the tracker");
  stats().add("phase_stalls", phase_stalls_, "count", "K phases that waited for input data");
  stats().add("partial_bytes", partial_bytes_, "B",
              "split-K FP32 partial bytes written (the same bytes are read back)");
  stats().add("compute_ps", compute_ps_, "ps", "WG time computing K phases (sum over WGs)");
  stats().add("memory_stall_ps", memory_ps_, "ps", "WG time waiting for a later phase's data");
  stats().add("fill_ps", fill_ps_, "ps", "WG time from dispatch to its first phase (fill)");
  stats().add("drain_ps", drain_ps_, "ps", "WG time in wg_overhead after the K loop (drain)");
  stats().add_formula(
      "l2_hit_rate", [this] { return l2_hit_rate(); }, "ratio",
      "input bytes found in L2 or merged onto a fetch in flight / all input bytes");
  stats().add_formula(
      "l2_hits", [this] { return static_cast<double>(l2_.hits()); }, "count",
      "input slices found in L2");
  stats().add_formula(
      "l2_misses", [this] { return static_cast<double>(l2_.misses()); }, "count",
      "input slices fetched from HBM");
}

// Derived state of the plan: phase compute time (whole CU cycles, full tile), L2 slice ids.
void GemmKernel::configure() {
  const uint64_t phases = k_phases_for(spec_, (plan_.shape.k + plan_.split_k - 1) / plan_.split_k);
  check_gemm_counts(path().c_str(), plan_.tiles_m(), plan_.tiles_n(), plan_.split_k, phases);
  phases_ = static_cast<uint32_t>(phases);  // below kMaxOperandSlices
  ahead_ = std::min(lookahead_phases(spec_), phases_);
  partition_ = spec_.partition.enabled;
  const uint32_t p = phases_total();
  phase_limit_bytes_ = spec_.cu_inflight.count() / spec_.wgs_per_cu;
  // With the L2 front end the slice ports carry the L2 -> CU bandwidth, so a phase is its matrix
  // compute alone; without it l2_bandwidth bounds each WG's input rate (tile_select.h).
  const uint64_t k = (plan_.shape.k + p - 1) / p;
  const Precision math = plan_.shape.precision;
  if (matrix_rate(spec_, math) == 0) {
    throw ModelError(path(), "the GPU preset gives no matrix rate for this GEMM's precision");
  }
  phase_time_ = partition_
                    ? tile_compute_time(spec_, plan_.tile_m, plan_.tile_n, k, math)
                    : phase_time(spec_, plan_.tile_m, plan_.tile_n, k, plan_.elem_bytes, math);
  // A kernel class for unaligned operand rows reaches only a share of the matrix rate.
  const double share =
      unaligned_matrix_share(spec_.unaligned_kernels, plan_.shape, plan_.elem_bytes);
  if (share < 1.0) {
    phase_time_ = Duration::ps(
        static_cast<uint64_t>(std::ceil(static_cast<double>(phase_time_.count_ps()) / share)));
  }
  phase_flops_ = 2.0 * plan_.tile_m * plan_.tile_n * static_cast<double>(k);
  l2_ = SliceCache(spec_.l2, static_cast<uint32_t>(plan_.panels() * p),
                   static_cast<uint32_t>(plan_.tiles()));
  const size_t per_tile = plan_.split_k > 1 ? plan_.tiles() : 0;
  splits_left_.assign(per_tile, plan_.split_k);
  partials_out_.assign(per_tile, 0);
  reducer_.assign(per_tile, kNoWg);
}

double GemmKernel::l2_hit_rate() const {
  const uint64_t all = l2_hit_bytes() + l2_miss_bytes();
  return all == 0 ? 0.0 : static_cast<double>(l2_hit_bytes()) / static_cast<double>(all);
}

// Phases are global over the whole K: split s covers [s x phases_, (s + 1) x phases_).
uint64_t GemmKernel::phase_k(uint32_t phase) const {
  const uint64_t base = plan_.shape.k / phases_total();
  return base + (phase < plan_.shape.k % phases_total() ? 1 : 0);
}

uint64_t GemmKernel::phase_k0(uint32_t phase) const {
  return phase * (plan_.shape.k / phases_total()) +
         std::min<uint64_t>(phase, plan_.shape.k % phases_total());
}

// Panels: A row panel r of product b is b x tiles_m + r; B column panel c of product b is
// batch x tiles_m + b x tiles_n + c.
uint32_t GemmKernel::slice_id_a(uint32_t tile, uint32_t phase) const {
  const uint32_t b = tile / plan_.tiles_per_batch();
  const uint32_t row = (tile % plan_.tiles_per_batch()) / plan_.tiles_n();
  return (b * plan_.tiles_m() + row) * phases_total() + phase;
}

uint32_t GemmKernel::slice_id_b(uint32_t tile, uint32_t phase) const {
  const uint32_t b = tile / plan_.tiles_per_batch();
  const uint32_t panel =
      plan_.batch() * plan_.tiles_m() + b * plan_.tiles_n() + tile % plan_.tiles_n();
  return panel * phases_total() + phase;
}

uint64_t GemmKernel::tile_partial_bytes(uint32_t tile) const {
  return plan_.tile_rows(tile) * plan_.tile_cols(tile) * kPartialElemBytes;
}

// The A or B slice `id` (K-phase slice of a row or column panel): address and bytes.
GemmKernel::Operand GemmKernel::operand(uint32_t id) const {
  const uint32_t panel = id / phases_total();
  const uint32_t phase = id % phases_total();
  const uint64_t k = phase_k(phase);
  const uint64_t k0 = phase_k0(phase);
  const uint64_t e = plan_.elem_bytes;
  const uint32_t a_panels = plan_.batch() * plan_.tiles_m();
  if (panel < a_panels) {
    const uint64_t b = panel / plan_.tiles_m();
    const uint64_t row = panel % plan_.tiles_m();
    const uint64_t rows = plan_.tile_rows(static_cast<uint32_t>(row) * plan_.tiles_n());
    return {plan_.a_addr + b * plan_.shape.m * plan_.shape.k * e +
                (row * plan_.tile_m * plan_.shape.k + k0 * plan_.tile_m) * e,
            rows * k * e};
  }
  const uint64_t b = (panel - a_panels) / plan_.tiles_n();
  const uint32_t col = (panel - a_panels) % plan_.tiles_n();
  return {plan_.b_addr + b * plan_.shape.k * plan_.shape.n * e +
              (col * plan_.tile_n * plan_.shape.k + k0 * plan_.tile_n) * e,
          plan_.tile_cols(col) * k * e};
}

// Requests phases while they stay within the lookahead (next_compute + ahead, or [0, ahead) in
// the prologue) and the WG's outstanding-byte bound.
void GemmKernel::request_ahead(uint32_t w) {
  Wg& wg = wgs_[w];
  const uint32_t bound = std::min(phases_, wg.next_compute + ahead_ + (wg.computing ? 1 : 0));
  while (wg.next_request < bound) {
    if (phase_limit_bytes_ != 0 && wg.unready > 0) {
      const uint32_t phase = wg.split * phases_ + wg.next_request;
      const uint64_t bytes =
          (plan_.tile_rows(wg.tile) + plan_.tile_cols(wg.tile)) * phase_k(phase) * plan_.elem_bytes;
      if ((wg.unready + 1) * bytes > phase_limit_bytes_) return;
    }
    request_phase(w, wg.next_request);
  }
}

void GemmKernel::request_phase(uint32_t w, uint32_t local) {
  Wg& wg = wgs_[w];
  wg.next_request = local + 1;
  ++wg.unready;
  const uint32_t phase = wg.split * phases_ + local;
  const uint32_t waiter = w * phases_ + local;
  const uint32_t ids[2] = {slice_id_a(wg.tile, phase), slice_id_b(wg.tile, phase)};
  for (const uint32_t id : ids) {
    const Operand op = operand(id);
    switch (l2_.lookup(id, op.bytes, waiter)) {
      case SliceCache::Lookup::kReady:
        if (partition_) {
          deliver_hit(waiter, id);
        } else {
          operand_ready(waiter, now());
        }
        break;
      case SliceCache::Lookup::kPending:
        break;
      case SliceCache::Lookup::kMiss: {
        Access a;
        a.addr = op.addr;
        a.bytes = op.bytes;
        a.cmd = common::MemCmd::kRead;
        a.cls = common::TrafficClass::kGemmRead;
        a.done = this;
        a.tag = id;
        read_bytes_.inc(op.bytes);
        reads_.submit(a);
        break;
      }
    }
  }
}

// An L2-resident slice travels from its L2 slice to the WG: booked on the slice ports at once
// when no slice it spans is full (no event), else as a hit request that waits for the slice.
void GemmKernel::deliver_hit(uint32_t waiter, uint32_t id) {
  const Operand op = operand(id);
  const Tick at = reads_.target().reserve_hit(op.addr, op.bytes, common::TrafficClass::kGemmRead);
  if (at != Tick::max()) {
    operand_ready(waiter, at);
    return;
  }
  Access a;
  a.addr = op.addr;
  a.bytes = op.bytes;
  a.cmd = common::MemCmd::kRead;
  a.cls = common::TrafficClass::kGemmRead;
  a.l2_hit = true;
  a.done = this;
  a.tag = kHitTag | waiter;
  reads_.submit(a);
}

void GemmKernel::slice_ready(uint32_t waiter, uint32_t id, bool owner) {
  if (partition_ && !owner) {
    deliver_hit(waiter, id);  // merged: the fill is forwarded through the slice's port
    return;
  }
  operand_ready(waiter, now());
}

// One of the phase's two slices is in (or booked to arrive at `at`).
void GemmKernel::operand_ready(uint32_t waiter, Tick at) {
  const uint32_t w = waiter / phases_;
  ready_at_[waiter] = max(ready_at_[waiter], at);
  if (++ready_[waiter] == 2) {
    --wgs_[w].unready;
    request_ahead(w);  // the outstanding-byte bound may have held a phase back
  }
  try_compute(w);
}

void GemmKernel::try_compute(uint32_t w) {
  Wg& wg = wgs_[w];
  if (!wg.busy || wg.computing || wg.next_compute >= phases_) return;
  const size_t idx = static_cast<size_t>(w) * phases_ + wg.next_compute;
  if (ready_[idx] < 2) {
    if (wg.computed && wg.waiting_since == Tick::max()) wg.waiting_since = now();
    return;
  }
  const Tick start = max(now(), ready_at_[idx]);  // booked hits may still be on their way
  if (!wg.computed) {
    fill_ps_.inc((start - wg.started).count_ps());
    wg.computed = true;
  } else if (wg.waiting_since != Tick::max() || start > now()) {
    const Tick from = wg.waiting_since < now() ? wg.waiting_since : now();
    memory_ps_.inc((start - from).count_ps());
    if (wg.waiting_since == Tick::max()) phase_stalls_.inc();
  }
  wg.waiting_since = Tick::max();
  wg.computing = true;
  request_ahead(w);
  Duration t = phase_time_;
  if (clock_ != nullptr) {
    t = clock_->scale(phase_time_);
    wg.flop_rate = clock_->energy_weight(plan_.shape.precision) * phase_flops_ /
                   (static_cast<double>(t.count_ps()) * 1e-12);
    clock_->matrix_begin(wg.flop_rate);
  }
  compute_ps_.inc(t.count_ps());
  sim().call_at<GemmKernel, &GemmKernel::phase_done>(start + t, this, w);
}

void GemmKernel::phase_done(uint64_t w64) {
  const auto w = static_cast<uint32_t>(w64);
  Wg& wg = wgs_[w];
  wg.computing = false;
  if (clock_ != nullptr) clock_->matrix_end(wg.flop_rate);
  ++wg.next_compute;
  if (wg.next_compute < phases_) {
    const size_t idx = static_cast<size_t>(w) * phases_ + wg.next_compute;
    if (ready_[idx] < 2) phase_stalls_.inc();
    try_compute(w);
    return;
  }
  drain_ps_.inc(spec_.wg_overhead.count_ps());
  if (spec_.wg_overhead == Duration{}) {
    k_loop_done(w);
  } else {
    sim().call_at<GemmKernel, &GemmKernel::k_loop_done>(now() + spec_.wg_overhead, this, w);
  }
}

}  // namespace t3sim::gpu
