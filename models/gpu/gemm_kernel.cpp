#include "models/gpu/gemm_kernel.h"

#include <algorithm>

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
      l2_(spec.l2, (plan_.tiles_m() + plan_.tiles_n()) * spec.k_phases, plan_.tiles()) {
  if (plan_.order.size() != plan_.tiles() || plan_.stores.size() != plan_.tiles()) {
    throw ModelError(path(), "GEMM plan order/stores do not cover every tile");
  }
  // Full-tile compute time of one K phase, in whole CU cycles.
  const U128 flops = static_cast<U128>(2) * plan_.tile_m * plan_.tile_n *
                     ((plan_.shape.k + spec.k_phases - 1) / spec.k_phases);
  const double per_cycle = spec.flops_per_cu_cycle * spec.efficiency / spec.wgs_per_cu;
  const auto cycles = static_cast<uint64_t>(static_cast<double>(flops) / per_cycle + 0.999999);
  phase_time_ = spec.clock.cycles(cycles);
  stats().add("tiles", tiles_, "count", "output tiles computed");
  stats().add("dram_read_bytes", read_bytes_, "B", "input bytes fetched from HBM (L2 misses)");
  stats().add("admit_stalls", admit_stalls_, "count", "dispatches refused by the tracker");
  stats().add("phase_stalls", phase_stalls_, "count", "K phases that waited for input data");
  stats().add_formula(
      "l2_hits", [this] { return static_cast<double>(l2_.hits()); }, "count",
      "input slices found in L2");
  stats().add_formula(
      "l2_misses", [this] { return static_cast<double>(l2_.misses()); }, "count",
      "input slices fetched from HBM");
}

void GemmKernel::launch(uint32_t cus) {
  const uint32_t slots = cus * spec_.wgs_per_cu;
  if (slots == 0) throw ModelError(path(), "GEMM launched on zero CUs");
  wgs_.assign(slots, Wg{});
  ready_.assign(static_cast<size_t>(slots) * spec_.k_phases, 0);
  free_wgs_.clear();
  for (uint32_t w = slots; w > 0; --w) free_wgs_.push_back(w - 1);
  stores_left_ = plan_.tiles();
  computing_left_ = plan_.tiles();
  sim().call_at<GemmKernel, &GemmKernel::begin>(now() + spec_.launch_overhead, this, 0);
}

void GemmKernel::begin(uint64_t) {
  start_ = now();
  dispatch();
}

void GemmKernel::admit_retry() {
  if (!blocked_) return;
  blocked_ = false;
  dispatch();
}

void GemmKernel::dispatch() {
  while (!free_wgs_.empty() && next_tile_ < plan_.order.size() && !blocked_) {
    const uint32_t tile = plan_.order[next_tile_];
    if (hooks_ != nullptr && !hooks_->admit(tile)) {
      blocked_ = true;
      admit_stalls_.inc();
      return;
    }
    ++next_tile_;
    const uint32_t w = free_wgs_.back();
    free_wgs_.pop_back();
    wgs_[w] = Wg{tile, 0, 0, false, true, now()};
    std::fill_n(ready_.begin() + static_cast<std::ptrdiff_t>(w) * spec_.k_phases, spec_.k_phases,
                0);
    const uint32_t ahead = std::min(spec_.prefetch_phases, spec_.k_phases);
    for (uint32_t p = 0; p < ahead; ++p) request_phase(w, p);
    try_compute(w);
  }
}

uint64_t GemmKernel::phase_k(uint32_t phase) const {
  const uint64_t base = plan_.shape.k / spec_.k_phases;
  return base + (phase < plan_.shape.k % spec_.k_phases ? 1 : 0);
}

uint32_t GemmKernel::slice_id_a(uint32_t tile, uint32_t phase) const {
  return (tile / plan_.tiles_n()) * spec_.k_phases + phase;
}

uint32_t GemmKernel::slice_id_b(uint32_t tile, uint32_t phase) const {
  return (plan_.tiles_m() + tile % plan_.tiles_n()) * spec_.k_phases + phase;
}

void GemmKernel::request_phase(uint32_t w, uint32_t phase) {
  Wg& wg = wgs_[w];
  wg.next_request = phase + 1;
  const uint64_t k = phase_k(phase);
  const uint64_t k0 = phase * (plan_.shape.k / spec_.k_phases) +
                      std::min<uint64_t>(phase, plan_.shape.k % spec_.k_phases);
  const uint32_t waiter = w * spec_.k_phases + phase;
  const uint32_t ids[2] = {slice_id_a(wg.tile, phase), slice_id_b(wg.tile, phase)};
  const uint64_t bytes[2] = {plan_.tile_rows(wg.tile) * k * plan_.elem_bytes,
                             plan_.tile_cols(wg.tile) * k * plan_.elem_bytes};
  const uint64_t base[2] = {
      plan_.a_addr +
          ((wg.tile / plan_.tiles_n()) * plan_.tile_m * plan_.shape.k + k0 * plan_.tile_m) *
              plan_.elem_bytes,
      plan_.b_addr +
          ((wg.tile % plan_.tiles_n()) * plan_.tile_n * plan_.shape.k + k0 * plan_.tile_n) *
              plan_.elem_bytes};
  for (int i = 0; i < 2; ++i) {
    switch (l2_.lookup(ids[i], bytes[i], waiter)) {
      case SliceCache::Lookup::kReady:
        ++ready_[waiter];
        break;
      case SliceCache::Lookup::kPending:
        break;
      case SliceCache::Lookup::kMiss: {
        Access a;
        a.addr = base[i];
        a.bytes = bytes[i];
        a.cmd = common::MemCmd::kRead;
        a.cls = common::TrafficClass::kGemmRead;
        a.done = this;
        a.tag = ids[i];
        read_bytes_.inc(bytes[i]);
        reads_.submit(a);
        break;
      }
    }
  }
}

void GemmKernel::slice_ready(uint32_t waiter) {
  ++ready_[waiter];
  try_compute(waiter / spec_.k_phases);
}

void GemmKernel::try_compute(uint32_t w) {
  Wg& wg = wgs_[w];
  if (!wg.busy || wg.computing || wg.next_compute >= spec_.k_phases) return;
  const size_t idx = static_cast<size_t>(w) * spec_.k_phases + wg.next_compute;
  if (ready_[idx] < 2) return;
  wg.computing = true;
  if (wg.next_request < spec_.k_phases &&
      wg.next_request < wg.next_compute + 1 + spec_.prefetch_phases) {
    request_phase(w, wg.next_request);
  }
  sim().call_at<GemmKernel, &GemmKernel::phase_done>(now() + phase_time_, this, w);
}

void GemmKernel::phase_done(uint64_t w64) {
  const auto w = static_cast<uint32_t>(w64);
  Wg& wg = wgs_[w];
  wg.computing = false;
  ++wg.next_compute;
  if (wg.next_compute < spec_.k_phases) {
    const size_t idx = static_cast<size_t>(w) * spec_.k_phases + wg.next_compute;
    if (ready_[idx] < 2) phase_stalls_.inc();
    try_compute(w);
    return;
  }
  store(w);
}

void GemmKernel::store(uint32_t w) {
  Wg& wg = wgs_[w];
  const uint32_t tile = wg.tile;
  const TileStore& s = plan_.stores[tile];
  const uint64_t bytes = plan_.tile_bytes(tile);
  tiles_.inc();
  if (s.cached) l2_.pollute((plan_.tiles_m() + plan_.tiles_n()) * spec_.k_phases + tile, bytes);
  if (s.dst_gpu == gpu_) {
    Access a;
    a.addr = s.addr;
    a.bytes = bytes;
    a.cmd = s.cmd;
    a.cls = s.cls;
    a.tile = s.tracker_tile;
    a.done = this;
    a.tag = kStoreTag | tile;
    stores_.submit(a);
  } else {
    RemoteAccess r;
    r.src = gpu_;
    r.dst = s.dst_gpu;
    r.addr = s.addr;
    r.bytes = bytes;
    r.cmd = s.cmd;
    r.cls = s.cls;
    r.tile = s.tracker_tile;
    r.done = this;
    r.tag = kStoreTag | tile;
    remote_.post(r);
  }
  wg.busy = false;
  if (TraceWriter* tr = sim().tracer()) {
    tr->complete(gpu_, static_cast<int>(w), name(), wg.started, now() - wg.started);
  }
  free_wgs_.push_back(w);
  if (--computing_left_ == 0) compute_done_ = now();
  if (hooks_ != nullptr) hooks_->tile_computed(tile);
  dispatch();
}

void GemmKernel::access_done(uint64_t tag) {
  if ((tag & kStoreTag) == 0) {
    l2_.filled(static_cast<uint32_t>(tag), *this);
    return;
  }
  if (--stores_left_ == 0) {
    done_ = now();
    if (hooks_ != nullptr) hooks_->kernel_done();
  }
}

void GemmKernel::finish() {
  if (stores_left_ != 0 && start_ != Tick::max()) {
    throw ModelError(path(), std::to_string(stores_left_) + " of " + std::to_string(plan_.tiles()) +
                                 " tile stores never completed");
  }
}

}  // namespace t3sim::gpu
