#include "models/gpu/mem_stream.h"

#include <algorithm>

namespace t3sim::gpu {

MemStream::MemStream(common::MemTarget& target, uint32_t txn_bytes, uint32_t max_in_flight,
                     uint16_t gpu)
    : target_(target), txn_bytes_(txn_bytes), max_in_flight_(max_in_flight), gpu_(gpu) {}

uint32_t MemStream::alloc_slot() {
  if (free_.empty()) {
    slots_.emplace_back();
    return static_cast<uint32_t>(slots_.size() - 1);
  }
  const uint32_t s = free_.back();
  free_.pop_back();
  return s;
}

void MemStream::submit(const Access& a) {
  const uint32_t s = alloc_slot();
  slots_[s] = Slot{a, 0, 0};
  ++live_;
  if (a.bytes == 0) {  // degenerate: complete at once
    free_.push_back(s);
    --live_;
    if (a.done) a.done->access_done(a.tag);
    return;
  }
  fifo_.push_back(s);
  pump();
}

void MemStream::pump() {
  while (head_ < fifo_.size() && in_flight_ < max_in_flight_ && !waiting_) {
    const uint32_t s = fifo_[head_];
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
    req.client = this;
    req.tag = s;
    if (!target_.try_issue(req)) {
      waiting_ = true;
      target_.wait_for_space(this);
      return;
    }
    ++in_flight_;
    slot.issued += chunk;
    if (slot.issued == slot.a.bytes) ++head_;
  }
  if (head_ == fifo_.size()) {  // recycle the FIFO storage once drained
    fifo_.clear();
    head_ = 0;
  } else if (head_ > 4096 && head_ * 2 > fifo_.size()) {  // bound growth under constant load
    fifo_.erase(fifo_.begin(), fifo_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
}

void MemStream::mem_retry() {
  waiting_ = false;
  pump();
}

void MemStream::mem_done(const common::MemRequest& req) {
  --in_flight_;
  const auto s = static_cast<uint32_t>(req.tag);
  Slot& slot = slots_[s];
  slot.completed += req.bytes;
  if (slot.completed == slot.a.bytes) {
    const Access a = slot.a;
    free_.push_back(s);
    --live_;
    if (a.done) a.done->access_done(a.tag);
  }
  pump();
}

}  // namespace t3sim::gpu
