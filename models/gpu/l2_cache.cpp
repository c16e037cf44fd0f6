#include "models/gpu/l2_cache.h"

#include <algorithm>

namespace t3sim::gpu {

namespace {
// Foreign entries: at least 64 KiB, and at most 4096 of them fill the cache.
constexpr uint64_t kMinGranule = 64 * 1024;
constexpr uint64_t kMaxForeignEntries = 4096;
}  // namespace

SliceCache::SliceCache(Bytes capacity, uint32_t slices, uint32_t extra)
    : capacity_(capacity.count()),
      granule_(std::max(kMinGranule, capacity.count() / kMaxForeignEntries)),
      first_anon_(slices + extra) {
  // One more id than fit, so the id reused next has always left the cache (LRU order).
  const uint64_t anon = capacity_ / granule_ + 2;
  entries_.resize(static_cast<size_t>(first_anon_) + anon);
}

void SliceCache::unlink(uint32_t id) {
  Entry& e = entries_[id];
  if (e.prev != kNil)
    entries_[e.prev].next = e.next;
  else
    head_ = e.next;
  if (e.next != kNil)
    entries_[e.next].prev = e.prev;
  else
    tail_ = e.prev;
  e.prev = e.next = kNil;
}

void SliceCache::push_front(uint32_t id) {
  Entry& e = entries_[id];
  e.prev = kNil;
  e.next = head_;
  if (head_ != kNil) entries_[head_].prev = id;
  head_ = id;
  if (tail_ == kNil) tail_ = id;
}

void SliceCache::push_back(uint32_t id) {
  Entry& e = entries_[id];
  e.next = kNil;
  e.prev = tail_;
  if (tail_ != kNil) entries_[tail_].next = id;
  tail_ = id;
  if (head_ == kNil) head_ = id;
}

void SliceCache::make_room(uint64_t bytes, uint64_t* displaced) {
  while (used_ + bytes > capacity_ && tail_ != kNil) {
    const uint32_t victim = tail_;
    if (displaced != nullptr && victim < first_anon_) *displaced += entries_[victim].bytes;
    unlink(victim);
    used_ -= entries_[victim].bytes;
    entries_[victim].state = State::kAbsent;
  }
}

void SliceCache::foreign(uint64_t bytes, bool evict_first) {
  uint64_t& pending = foreign_pending_[evict_first ? 1 : 0];
  pending += bytes;
  if (granule_ > capacity_) return;
  while (pending >= granule_) {
    pending -= granule_;
    const uint32_t id = first_anon_ + next_anon_;
    next_anon_ = (next_anon_ + 1) % static_cast<uint32_t>(entries_.size() - first_anon_);
    Entry& e = entries_[id];
    if (e.state == State::kResident) {
      unlink(id);
      used_ -= e.bytes;
    }
    make_room(granule_, &displaced_);  // what it evicts of the GEMM's data is displaced
    e.state = State::kResident;
    e.bytes = granule_;
    used_ += granule_;
    if (evict_first) {
      push_back(id);
    } else {
      push_front(id);
    }
  }
}

void SliceCache::insert(uint32_t id, uint64_t bytes) {
  if (bytes > capacity_) return;  // larger than the cache: streams through
  make_room(bytes);
  entries_[id].state = State::kResident;
  entries_[id].bytes = bytes;
  used_ += bytes;
  push_front(id);
}

SliceCache::Lookup SliceCache::lookup(uint32_t id, uint64_t bytes, uint32_t wg) {
  Entry& e = entries_[id];
  if (e.state == State::kResident) {
    ++hits_;
    hit_bytes_ += bytes;
    unlink(id);
    push_front(id);
    return Lookup::kReady;
  }
  uint32_t n;
  if (free_nodes_.empty()) {
    nodes_.push_back({wg, e.waiters});
    n = static_cast<uint32_t>(nodes_.size() - 1);
  } else {
    n = free_nodes_.back();
    free_nodes_.pop_back();
    nodes_[n] = {wg, e.waiters};
  }
  e.waiters = n;
  if (e.state == State::kFetching) {
    ++merged_;
    merged_bytes_ += bytes;
    return Lookup::kPending;
  }
  ++misses_;
  miss_bytes_ += bytes;
  e.owner = wg;
  e.state = State::kFetching;
  e.bytes = bytes;
  return Lookup::kMiss;
}

void SliceCache::filled(uint32_t id, SliceWaiter& w) {
  Entry& e = entries_[id];
  uint32_t n = e.waiters;
  const uint32_t owner = e.owner;
  e.waiters = kNil;
  e.owner = kNil;
  e.state = State::kAbsent;
  insert(id, e.bytes);
  while (n != kNil) {
    const Node node = nodes_[n];
    free_nodes_.push_back(n);
    n = node.next;
    w.slice_ready(node.wg, id, node.wg == owner);
  }
}

void SliceCache::pollute(uint32_t id, uint64_t bytes) {
  Entry& e = entries_[id];
  if (e.state == State::kResident) {
    unlink(id);
    used_ -= e.bytes;
  }
  insert(id, bytes);
}

}  // namespace t3sim::gpu
