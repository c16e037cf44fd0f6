// L2 model for GEMM inputs: the cache holds K-phase slices of A row-panels and B column-panels
// (the data one WG streams per phase), LRU within the configured capacity. A slice fetched by one
// WG is shared by every WG that needs it while it is in flight (MSHR merging) or resident (reuse
// across waves). Output tiles written through the cache (baseline stores) occupy capacity and
// evict inputs; T3's uncached output region bypasses it (t3-paper.md §6.2 point 3). Other traffic
// through the GPU's L2 (communication, co-running kernels; l2_residency.h) takes capacity as
// anonymous foreign entries of `granule` bytes: allocating ones enter at the most recently used
// end and age like the GEMM's slices, evict-first ones enter at the least recently used end, so
// each replaces the one before and together they hold about one granule.
// Fidelity: slice granularity, fully associative LRU, no bank conflicts; foreign bytes are never
// hits. Contract: lookup() returns kReady, or kPending after registering the
// waiter, which is called back once via SliceWaiter when the slice arrives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/units.h"

namespace t3sim::gpu {

class SliceWaiter {
 public:
  virtual ~SliceWaiter() = default;
  // Slice `id` arrived for `wg`; `owner`: this waiter's lookup fetched it (others merged onto it).
  virtual void slice_ready(uint32_t wg, uint32_t id, bool owner) = 0;
};

class SliceCache {
 public:
  enum class Lookup { kReady, kPending, kMiss };
  // `slices` ids are dense [0, slices); `extra` ids follow for pollution entries.
  SliceCache(Bytes capacity, uint32_t slices, uint32_t extra);
  // kMiss means the caller must fetch it and call filled(id) later; the waiter is registered.
  Lookup lookup(uint32_t id, uint64_t bytes, uint32_t wg);
  // Marks slice id resident and wakes its waiters through `w`.
  void filled(uint32_t id, SliceWaiter& w);
  // Inserts a non-reusable entry (a written output tile) that takes capacity.
  void pollute(uint32_t id, uint64_t bytes);
  // `bytes` of other traffic passed the L2 (allocating, or as evict-first lines).
  void foreign(uint64_t bytes, bool evict_first);
  uint64_t granule() const { return granule_; }
  uint64_t used_bytes() const { return used_; }
  // Bytes of the GEMM's slices evicted to make room for foreign entries.
  uint64_t displaced_bytes() const { return displaced_; }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t merged() const { return merged_; }
  uint64_t hit_bytes() const { return hit_bytes_; }
  uint64_t merged_bytes() const { return merged_bytes_; }
  uint64_t miss_bytes() const { return miss_bytes_; }

 private:
  enum class State : uint8_t { kAbsent, kFetching, kResident };
  struct Entry {
    State state = State::kAbsent;
    uint64_t bytes = 0;
    uint32_t prev = kNil;
    uint32_t next = kNil;
    uint32_t waiters = kNil;  // head of waiter list (index into nodes_)
    uint32_t owner = kNil;    // waiter whose lookup missed (fetches the slice)
  };
  struct Node {
    uint32_t wg;
    uint32_t next;
  };
  static constexpr uint32_t kNil = 0xffffffffu;
  void unlink(uint32_t id);
  void push_front(uint32_t id);
  // Evicts LRU entries until `bytes` fit; adds the GEMM slices' bytes it evicts to *displaced.
  void make_room(uint64_t bytes, uint64_t* displaced = nullptr);
  void insert(uint32_t id, uint64_t bytes);
  void push_back(uint32_t id);

  uint64_t capacity_;
  uint64_t granule_;                      // foreign entry size
  uint32_t first_anon_ = 0;               // foreign entry ids: [first_anon_, entries_.size())
  uint32_t next_anon_ = 0;                // the next one to (re)use, round robin
  uint64_t foreign_pending_[2] = {0, 0};  // bytes short of a granule (allocating, evict-first)
  uint64_t displaced_ = 0;
  uint64_t used_ = 0;
  std::vector<Entry> entries_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> free_nodes_;
  uint32_t head_ = kNil;  // most recently used
  uint32_t tail_ = kNil;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  uint64_t merged_ = 0;
  uint64_t hit_bytes_ = 0;
  uint64_t merged_bytes_ = 0;
  uint64_t miss_bytes_ = 0;
};

}  // namespace t3sim::gpu
