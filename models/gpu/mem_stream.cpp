#include "models/gpu/mem_stream.h"

#include <algorithm>
#include <bit>

namespace t3sim::gpu {

MemStream::MemStream(common::MemTarget& target, uint32_t txn_bytes, uint32_t max_in_flight,
                     uint16_t gpu, uint32_t bypass)
    : target_(target),
      txn_bytes_(txn_bytes),
      max_in_flight_(max_in_flight),
      gpu_(gpu),
      bypass_(bypass) {}

void MemStream::submit(const Access& a) {
  const uint32_t s = slots_.acquire(Slot{a, 0, 0, false});
  if (flags_.size() < slots_.size()) flags_.resize(slots_.size());
  set_flags(s);
  ++live_;
  if (a.bytes == 0) {  // degenerate: complete at once
    slots_.release(s);
    --live_;
    if (a.done) a.done->access_done(a.tag);
    return;
  }
  push_fifo(s);
  pump();
}

void MemStream::push_fifo(uint32_t s) {
  fifo_.push_back(s);
  if (bypass_ == 0) return;
  const uint64_t abs = base_ + fifo_.size() - 1;
  if (last_pos_.size() < slots_.size()) {
    last_pos_.resize(slots_.size(), kNoPos);
    first_pos_.resize(slots_.size(), kNoPos);
  }
  next_pos_.push_back(kNoPos);
  if (ready_.size() * 64 < fifo_.size()) ready_.push_back(0);
  const uint64_t last = last_pos_[s];
  if (last != kNoPos && last >= base_) next_pos_[last - base_] = abs;
  last_pos_[s] = abs;
  mark_slot(s);  // older positions of a recycled slot id may issue again
  if (first_pos_[s] == kNoPos) first_pos_[s] = abs;
}

void MemStream::mark_slot(uint32_t s) {
  uint64_t p = first_pos_[s];
  while (p != kNoPos && p < base_ + head_) p = p < base_ ? kNoPos : next_pos_[p - base_];
  first_pos_[s] = p;
  for (; p != kNoPos && p < covered_; p = next_pos_[p - base_]) mark(p - base_);
}

size_t MemStream::next_ready(size_t i, size_t end) {
  for (uint64_t p = std::max(covered_, base_ + i); p < base_ + end; ++p) {
    if (flags_[fifo_[p - base_]] == 0) mark(p - base_);
  }
  covered_ = std::max(covered_, base_ + end);
  while (i < end) {
    const size_t w = i / 64;
    const uint64_t bits = ready_[w] & (~uint64_t{0} << (i % 64));
    if (bits == 0) {
      i = (w + 1) * 64;
      continue;
    }
    i = w * 64 + static_cast<size_t>(std::countr_zero(bits));
    if (i >= end) break;
    if (flags_[fifo_[i]] == 0) return i;
    ready_[w] &= ~(uint64_t{1} << (i % 64));  // blocked or fully issued: marked again if needed
    ++i;
  }
  return end;
}

// After the FIFO lost its prefix: each slot's first position, and the bits of covered positions.
void MemStream::rebuild_links() {
  covered_ = std::max(covered_, base_);
  std::fill(first_pos_.begin(), first_pos_.end(), kNoPos);
  ready_.assign((fifo_.size() + 63) / 64, 0);
  for (size_t i = 0; i < fifo_.size(); ++i) {
    const uint32_t s = fifo_[i];
    if (first_pos_[s] == kNoPos) first_pos_[s] = base_ + i;
    if (base_ + i < covered_ && flags_[s] == 0) mark(i);
  }
}

// Recycles the FIFO storage once drained; bounds its growth under constant load.
void MemStream::compact_fifo() {
  if (head_ == fifo_.size()) {
    base_ += fifo_.size();
    fifo_.clear();
    if (bypass_ != 0) {  // every stored position is now below base_: mark_slot() drops them
      next_pos_.clear();
      ready_.clear();
      covered_ = std::max(covered_, base_);
    }
    head_ = 0;
  } else if (head_ > 4096 && head_ * 2 > fifo_.size()) {
    const auto cut = static_cast<std::ptrdiff_t>(head_);
    fifo_.erase(fifo_.begin(), fifo_.begin() + cut);
    if (bypass_ != 0) {
      base_ += head_;
      next_pos_.erase(next_pos_.begin(), next_pos_.begin() + cut);
      rebuild_links();
    }
    head_ = 0;
  }
}

void MemStream::pump() {
  if (bypass_ != 0) {
    pump_window();
    return;
  }
  while (head_ < fifo_.size() && in_flight_ < max_in_flight_ && !waiting_) {
    const uint32_t s = fifo_[head_];
    if (!issue_chunk(s)) {
      waiting_ = true;
      target_.wait_for_space(this);
      return;
    }
    if (slots_[s].issued == slots_[s].a.bytes) ++head_;
  }
  if (head_ != 0 && (head_ == fifo_.size() || head_ > 4096)) compact_fifo();  // else a no-op
}

// Issues the next chunk of slot s; false if the target refused it.
bool MemStream::issue_chunk(uint32_t s) {
  Slot& slot = slots_[s];
  const uint64_t addr = slot.a.addr + slot.issued;
  const uint64_t chunk =
      std::min<uint64_t>(txn_bytes_ - addr % txn_bytes_, slot.a.bytes - slot.issued);
  common::MemRequest req;
  req.addr = addr;
  req.bytes = static_cast<uint32_t>(chunk);
  req.cmd = slot.a.cmd;
  req.cls = slot.a.cls;
  req.origin_gpu = gpu_;
  req.tile = slot.a.tile;
  req.contrib = slot.a.contrib;
  req.l2_hit = slot.a.l2_hit;
  req.write_back = slot.a.write_back;
  req.l2 = slot.a.l2;
  req.client = this;
  req.tag = s;
  if (!target_.try_issue(req)) return false;
  ++in_flight_;
  slots_[s].issued += chunk;
  set_flags(s);
  return true;
}

// Bypass mode: passes over the head and up to bypass_ accesses behind it until nothing issues.
void MemStream::pump_window() {
  if (pumping_) {  // re-entered from a target callback: the outer loop passes again
    repump_ = true;
    return;
  }
  pumping_ = true;
  do {
    repump_ = false;
    bool progress = true;
    while (progress && in_flight_ < max_in_flight_) {
      progress = false;
      while (head_ < fifo_.size() && (flags_[fifo_[head_]] & kIssued) != 0) ++head_;
      const size_t end = std::min(fifo_.size(), head_ + 1 + bypass_);
      for (size_t i = head_;; ++i) {
        i = next_ready(i, end);  // skips blocked and fully issued accesses
        if (i == end || in_flight_ >= max_in_flight_) break;
        const uint32_t s = fifo_[i];
        if (issue_chunk(s)) {
          progress = true;
        } else {
          slots_[s].blocked = true;
          ++blocked_;
          set_flags(s);
          target_.wait_for_space(this);  // at most one place per refusing queue (MemTarget)
        }
      }
    }
  } while (repump_);
  pumping_ = false;
  compact_fifo();
}

void MemStream::mem_retry() {
  waiting_ = false;
  if (bypass_ != 0 && blocked_ != 0) {
    const size_t end = std::min(fifo_.size(), head_ + 1 + bypass_);
    for (size_t i = head_; i < end && blocked_ != 0; ++i) {  // none left: the rest is a no-op
      const uint32_t s = fifo_[i];
      if ((flags_[s] & kBlocked) == 0) continue;
      slots_[s].blocked = false;
      --blocked_;
      set_flags(s);
      mark_slot(s);
    }
  }
  pump();
}

void MemStream::mem_done(const common::MemRequest& req) {
  --in_flight_;
  const auto s = static_cast<uint32_t>(req.tag);
  Slot& slot = slots_[s];
  slot.completed += req.bytes;
  if (slot.completed == slot.a.bytes) {
    const Access a = slot.a;
    slots_.release(s);
    --live_;
    if (a.done) a.done->access_done(a.tag);
  }
  pump();
}

}  // namespace t3sim::gpu
