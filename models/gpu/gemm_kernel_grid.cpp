// GemmKernel's grid: launch, WG slots added while running, and how work items reach WG slots:
// per_tile (the next item to the next free slot, in plan order) or a persistent grid of CTAs that
// each hold a slot for a list of items (static or dynamic schedule, gemm_kernel.h).
#include <algorithm>

#include "models/gpu/gemm_kernel.h"
#include "models/gpu/tile_select.h"
#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::gpu {

void GemmKernel::launch(uint32_t cus) {
  const uint32_t slots = cus * spec_.wgs_per_cu;
  if (slots == 0) throw ModelError(path(), "GEMM launched on zero CUs");
  if (static_cast<uint64_t>(slots) * phases_ > kMaxSlotPhases) {
    throw ModelError(path(), "GEMM beyond the model: " + std::to_string(slots) + " WG slots x " +
                                 std::to_string(phases_) + " K phases pass the model's " +
                                 std::to_string(kMaxSlotPhases));
  }
  persistent_ = spec_.gemm_launch == GemmLaunch::kPersistent;
  if (plan_.retile && spec_.tile_select == TileSelect::kHeuristic) {
    // A library picks a persistent kernel for the whole GPU: it cannot see SMs held elsewhere.
    const uint32_t seen = persistent_ ? spec_.cus : cus;
    const TileChoice c = select_tile(spec_, plan_.shape, plan_.elem_bytes, seen);
    plan_ = local_gemm_plan(plan_.shape, plan_.elem_bytes, c.tile_m, c.tile_n, spec_.group_m, gpu_,
                            plan_.a_addr, plan_.b_addr, plan_.c_addr, c.split_k);
    configure();
  }
  wgs_.assign(slots, Wg{});
  ready_.assign(static_cast<size_t>(slots) * phases_, 0);
  ready_at_.assign(static_cast<size_t>(slots) * phases_, Tick{});
  free_wgs_.clear();
  for (uint32_t w = slots; w > 0; --w) free_wgs_.push_back(w - 1);
  stores_left_ = static_cast<uint32_t>(plan_.tiles());  // below kMaxWorkGroups
  computing_left_ = stores_left_;
  const auto all = static_cast<uint32_t>(items());  // tiles x split_k, below kMaxWorkGroups
  ctas_ = persistent_ ? std::min(all, spec_.cus * spec_.wgs_per_cu) : all;
  if (persistent_) {
    slot_cta_.assign(slots, kNoCta);
    cta_next_.resize(ctas_);
    for (uint32_t j = 0; j < ctas_; ++j) cta_next_[j] = j;
    admitted_.assign(plan_.tiles(), 0);
    // A dynamic schedule's counter starts after the items assigned by CTA index.
    if (spec_.persistent_schedule == PersistentSchedule::kDynamic) next_tile_ = static_items_end();
  }
  sim().call_at<GemmKernel, &GemmKernel::begin>(now() + spec_.launch_overhead, this, 0);
}

void GemmKernel::add_cus(uint32_t cus) {
  const uint32_t extra = cus * spec_.wgs_per_cu;
  if (extra == 0 || wgs_.empty()) return;
  const auto first = static_cast<uint32_t>(wgs_.size());
  wgs_.resize(first + extra, Wg{});
  ready_.resize(static_cast<size_t>(first + extra) * phases_, 0);
  ready_at_.resize(static_cast<size_t>(first + extra) * phases_, Tick{});
  if (persistent_) slot_cta_.resize(first + extra, kNoCta);
  for (uint32_t w = first + extra; w > first; --w) free_wgs_.push_back(w - 1);
  if (start_ != Tick::max()) dispatch();
}

void GemmKernel::begin(uint64_t) {
  start_ = now();
  if (clock_ != nullptr) clock_->kernel_started();
  if (residency_ != nullptr) residency_->attach(&l2_);
  dispatch();
}

void GemmKernel::admit_retry() {
  if (!blocked_) return;
  blocked_ = false;
  dispatch();
}

void GemmKernel::dispatch() {
  if (persistent_) {
    dispatch_persistent();
  } else {
    dispatch_per_tile();
  }
}

// Whether the item may start: its tile needs no admit() (no hooks, or an earlier split asked) or
// the hooks admit it now. A refusal blocks further admissions until admit_retry().
bool GemmKernel::admit_item(size_t item) {
  const uint32_t tile = plan_.order[item / plan_.split_k];
  const bool first = persistent_ ? admitted_[tile] == 0 : item % plan_.split_k == 0;
  if (!first || hooks_ == nullptr) return true;
  if (blocked_) return false;
  if (!hooks_->admit(tile)) {
    blocked_ = true;
    admit_stalls_.inc();
    return false;
  }
  if (persistent_) admitted_[tile] = 1;
  return true;
}

// Work item i is split i % split_k of tile order[i / split_k] (a tile's splits are adjacent).
void GemmKernel::dispatch_per_tile() {
  while (!free_wgs_.empty() && next_tile_ < items() && !blocked_) {
    if (!admit_item(next_tile_)) return;
    const uint32_t w = free_wgs_.back();
    free_wgs_.pop_back();
    start_item(w, next_tile_++);
  }
}

// Resident CTAs between items take their next one, in the order they asked (a CTA whose list is
// done leaves its slot); one whose tile admit() refuses waits without holding back CTAs whose next
// item belongs to an admitted tile. Then free slots take waiting CTAs in CTA order.
void GemmKernel::dispatch_persistent() {
  const bool dynamic = spec_.persistent_schedule == PersistentSchedule::kDynamic;
  const size_t static_end = static_items_end();
  bool progress = true;
  while (progress) {
    progress = false;
    for (auto it = wanting_.begin(); it != wanting_.end();) {
      const uint32_t w = *it;
      const uint32_t cta = slot_cta_[w];
      // A dynamic CTA takes its items by index while they lie below static_end.
      const bool from_counter = dynamic && cta_next_[cta] >= static_end;
      const size_t item = from_counter ? next_tile_ : cta_next_[cta];
      if (item >= items()) {  // the CTA's list is done: its slot is free
        it = wanting_.erase(it);
        slot_cta_[w] = kNoCta;
        free_wgs_.push_back(w);
        progress = true;
        continue;
      }
      if (!admit_item(item)) {
        ++it;
        continue;
      }
      it = wanting_.erase(it);
      if (from_counter) {
        ++next_tile_;
      } else {
        cta_next_[cta] += ctas_;
      }
      start_item(w, item);
      progress = true;
    }
    while (!free_wgs_.empty() && next_cta_ < ctas_) {
      const uint32_t w = free_wgs_.back();
      free_wgs_.pop_back();
      slot_cta_[w] = next_cta_++;
      wanting_.push_back(w);
      progress = true;
    }
  }
}

size_t GemmKernel::static_items_end() const {
  if (spec_.persistent_schedule != PersistentSchedule::kDynamic) return items();
  return std::min(items(), static_cast<size_t>(spec_.persistent_static_rounds) * ctas_);
}

void GemmKernel::start_item(uint32_t w, size_t item) {
  wgs_[w] = Wg{};
  wgs_[w].tile = plan_.order[item / plan_.split_k];
  wgs_[w].split = static_cast<uint32_t>(item % plan_.split_k);
  wgs_[w].busy = true;
  wgs_[w].started = now();
  std::fill_n(ready_.begin() + static_cast<std::ptrdiff_t>(w) * phases_, phases_, 0);
  std::fill_n(ready_at_.begin() + static_cast<std::ptrdiff_t>(w) * phases_, phases_, Tick{});
  request_ahead(w);  // the prologue: phases [0, ahead)
  try_compute(w);
}

}  // namespace t3sim::gpu
