#include "models/gpu/mem_stream.h"

#include <algorithm>

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
  fifo_.push_back(s);
  pump();
}

// Recycles the FIFO storage once drained; bounds its growth under constant load.
void MemStream::compact_fifo() {
  if (head_ == fifo_.size()) {
    fifo_.clear();
    head_ = 0;
  } else if (head_ > 4096 && head_ * 2 > fifo_.size()) {
    fifo_.erase(fifo_.begin(), fifo_.begin() + static_cast<std::ptrdiff_t>(head_));
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
  compact_fifo();
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
