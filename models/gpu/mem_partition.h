// MemPartition: the memory-partition front end of one GPU, a common::MemTarget in front of its HBM
// that every access passes (GEMM loads and stores, collectives, DMA, remote writes and UPDATEs).
// One L2 slice per HBM channel (same address map). Every request occupies the slices' data ports
// for bytes / hit_bandwidth; the ports are pooled, because real L2s interleave lines over slices
// at a few hundred bytes, so one request's data spreads over all of them (t3sim's 32 KiB channel
// interleave would otherwise pile a K-phase panel onto one or two ports). An L2 hit
// (MemRequest::l2_hit) completes hit_latency after its port time; any other request goes to
// DRAM through its slice's L2 -> DRAM miss queue (bytes); a read also holds MSHR bytes until its
// data returns.
// Semantics (GPGPU-Sim memory_sub_partition::cache_cycle): a slice takes requests in order from
// its input only while its L2 -> DRAM queue is not full, and a request that cannot reserve an
// MSHR or miss-queue entry stays at the head; so while the miss queue or the MSHRs are full the
// slice accepts nothing, hits included. The miss queue keeps compute and communication in two
// FIFOs and forwards the older head; a head the DRAM refuses does not block the other class.
// Write-back L2: a store marked MemRequest::write_back (a normal GEMM output store; T3's UPDATEs
// and all communication writes are uncached) is done once the slice's data port has taken it; its
// bytes become dirty in the slice's write-back buffer (`dirty` bytes per slice) and reach DRAM
// later through the slice's own write-back client, after the demand misses, or ahead of them once
// the buffer is half full (a write drain). A store that finds the buffer full waits for room, as a
// GPGPU-Sim L2 stalls a write miss that cannot allocate a line; dirty = 0 writes such stores
// through at store time (the old behaviour). Every buffered byte is written back before the run
// ends, so DRAM traffic is the same either way; only its timing moves. Every accepted request is
// reported to the L2's residency (l2_residency.h), where communication takes capacity from the
// running GEMMs' data.
// Fidelity: L2 hit/miss is decided by the requester's L2 model (l2_cache.h); no MSHR merge limit
// (merging is at K-phase slice granularity in the GEMM's L2 model). Contract: MemTarget's; a
// refused client gets exactly one mem_retry() once its slice accepts again; finish() throws if work
// is left.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/common/memory.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/l2_residency.h"
#include "sim/component.h"
#include "sim/event.h"
#include "sim/ring_buffer.h"
#include "sim/slot_pool.h"

namespace t3sim::gpu {

class MemPartition final : public Component, public common::MemTarget {
 public:
  MemPartition(Simulator& sim, Component* parent, std::string name, const PartitionSpec& spec,
               Bandwidth fallback_hit_bandwidth, common::MemTarget& dram,
               const common::ChannelMap& map);
  ~MemPartition() override;
  bool try_issue(const common::MemRequest& req) override;
  void wait_for_space(common::MemClient* c) override;
  // Books a hit on every slice it spans if none is full (a full slice refuses hits too).
  Tick reserve_hit(uint64_t addr, uint64_t bytes, common::TrafficClass cls) override;

  // Bytes accepted / completed per traffic class (hits and DRAM-bound together).
  uint64_t bytes_in(common::TrafficClass c) const { return in_[static_cast<size_t>(c)]; }
  uint64_t bytes_out(common::TrafficClass c) const { return out_[static_cast<size_t>(c)]; }
  uint64_t hit_bytes() const { return hit_bytes_.value(); }
  uint64_t buffered_bytes() const { return buffered_bytes_.value(); }
  uint64_t miss_bytes() const { return miss_bytes_.value(); }
  uint64_t refusals() const { return refusals_.value(); }
  size_t outstanding() const { return outstanding_; }
  // The running GEMMs' caches, which the traffic accepted here takes capacity from.
  L2Residency& residency() { return residency_; }
  void finish() override;

 private:
  class Slice;
  friend class Slice;
  void completed(const common::MemRequest& req);
  void written_back();
  void full_changed(bool was, bool is) {
    if (was != is) full_slices_ += is ? 1 : static_cast<uint32_t>(-1);
  }
  // Occupies the pooled slice data ports for `bytes`; returns when the transfer ends.
  Tick use_port(uint64_t bytes);

  PartitionSpec spec_;
  L2Residency residency_;
  Bandwidth port_;  // all slices' data ports together
  Tick port_free_{};
  uint64_t port_memo_bytes_ = 0;  // use_port()'s last size and its transfer time
  Duration port_memo_time_{};
  common::MemTarget& dram_;
  const common::ChannelMap& map_;
  std::vector<std::unique_ptr<Slice>> slices_;
  SlotPool<common::MemRequest> slots_;  // DRAM-bound requests in flight (original form)
  uint32_t refused_ = 0;                // slice of the last refusal
  bool refused_dirty_ = false;          // the last refusal was for a full write-back buffer
  uint32_t full_slices_ = 0;            // slices refusing requests now
  size_t outstanding_ = 0;
  std::array<uint64_t, common::kNumTrafficClasses> in_{};
  std::array<uint64_t, common::kNumTrafficClasses> out_{};
  Counter hit_bytes_;
  Counter miss_bytes_;
  Counter refusals_;
  Counter buffered_bytes_;
  Counter blocked_hits_;
};

}  // namespace t3sim::gpu
