// The memory-request vocabulary shared by every model: commands (READ, WRITE, near-memory UPDATE),
// traffic classes (who caused the access: GEMM, reduce-scatter, all-gather), and the requester /
// target interfaces with back-pressure. Fidelity: a request is a transaction of up to a few KiB
// that maps to exactly one HBM channel (requesters split larger transfers at the interleave size).
// A request marked l2_hit is data the requester's L2 model found resident: a memory-partition front
// end (models/gpu/mem_partition.h) serves it from its slice without a DRAM access.
// Contract: MemTarget::try_issue() either accepts (and later calls client->mem_done() exactly once,
// if a client is given) or refuses because its queue is full; a refused requester calls
// wait_for_space() and gets exactly one mem_retry() when space frees.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sim/units.h"

namespace t3sim::common {

enum class MemCmd : uint8_t { kRead, kWrite, kUpdate };

// Who caused an access. Compute = the GEMM's own traffic; the rest is communication.
enum class TrafficClass : uint8_t {
  kGemmRead,    // GEMM input panels (A, B) missing in L2
  kGemmWrite,   // GEMM output stores (baseline) to local HBM
  kGemmUpdate,  // GEMM output stores as NMC updates (T3), local or remote
  kRsRead,      // reduce-scatter reads (partial sums, local chunks)
  kRsWrite,     // reduce-scatter writes (receive buffers, results)
  kRsUpdate,    // reduce-scatter NMC updates (DMA-forwarded partial sums)
  kAgRead,      // all-gather reads
  kAgWrite,     // all-gather writes
  kCount
};
inline constexpr size_t kNumTrafficClasses = static_cast<size_t>(TrafficClass::kCount);

constexpr std::string_view to_string(TrafficClass c) {
  constexpr std::array<std::string_view, kNumTrafficClasses> kNames{
      "gemm_read", "gemm_write", "gemm_update", "rs_read",
      "rs_write",  "rs_update",  "ag_read",     "ag_write"};
  return kNames[static_cast<size_t>(c)];
}
constexpr std::string_view to_string(MemCmd c) {
  return c == MemCmd::kRead ? "read" : (c == MemCmd::kWrite ? "write" : "update");
}
constexpr bool is_compute(TrafficClass c) {
  return c == TrafficClass::kGemmRead || c == TrafficClass::kGemmWrite ||
         c == TrafficClass::kGemmUpdate;
}

inline constexpr uint32_t kNoTile = 0xffffffffu;

class MemClient;

// How an access allocates in the L2 of the GPU whose memory it reaches (the L2 is memory-side, so
// every DRAM access passes it): kDefault takes the GPU's policy for its class (gpu_spec.h
// PartitionSpec::comm_policy for communication; a GEMM's own loads and stores are modelled by its
// cache, l2_cache.h), kEvictFirst allocates lines that are replaced before any other
// (__ldcs/__stcs, ld.global.cs), kNoAllocate streams past the L2 (NMC UPDATEs).
enum class L2Policy : uint8_t { kDefault, kAllocate, kEvictFirst, kNoAllocate };

struct MemRequest {
  uint64_t addr = 0;   // byte address in the target GPU's HBM
  uint32_t bytes = 0;  // transaction size
  MemCmd cmd = MemCmd::kRead;
  TrafficClass cls = TrafficClass::kGemmRead;
  uint16_t origin_gpu = 0;      // GPU whose agent issued the request
  uint32_t tile = kNoTile;      // tracker tile id for UPDATEs and WRITEs the tracker counts
  uint16_t contrib = 1;         // GPUs' partial sums folded into this UPDATE's data
  MemClient* client = nullptr;  // completion callback target (nullptr = posted, no callback)
  uint64_t tag = 0;             // client cookie
  Tick enqueued{};              // set by the target on acceptance
  bool l2_hit = false;          // served by the L2 (a memory-partition front end); no DRAM access
  bool write_back = false;      // a WRITE into a write-back L2: done when the L2 holds it; the L2
                                // writes it to DRAM later (a target without an L2 writes it now)
  L2Policy l2 = L2Policy::kDefault;  // how it allocates in the L2 (above)
};

class MemClient {
 public:
  virtual ~MemClient() = default;
  virtual void mem_done(const MemRequest& req) = 0;
  virtual void mem_retry() {}
};

class MemTarget {
 public:
  virtual ~MemTarget() = default;
  virtual bool try_issue(const MemRequest& req) = 0;
  // Registers `c` for one mem_retry() call once the queue that refused its last try_issue() has
  // space. A client already waiting on that queue is not registered twice (one retry per queue
  // and client), so a client with many refused requests holds at most one place per queue.
  virtual void wait_for_space(MemClient* c) = 0;
  // Event-free fast path for an L2 hit of `bytes` at `addr`: a target that serves hits books the
  // transfer now and returns when the data is delivered (no mem_done follows); Tick::max() when
  // it cannot accept it now (then issue it with try_issue) or does not serve hits.
  virtual Tick reserve_hit(uint64_t /*addr*/, uint64_t /*bytes*/, TrafficClass /*cls*/) {
    return Tick::max();
  }
};

// Which channel of a memory target serves an address (a front end keeps one L2 slice per channel).
class ChannelMap {
 public:
  virtual ~ChannelMap() = default;
  virtual uint32_t channels() const = 0;
  virtual uint32_t channel(uint64_t addr) const = 0;
  virtual uint64_t interleave() const = 0;  // bytes of one contiguous block of a channel
};

// Observer of accepted/completed UPDATEs at a memory controller (the T3 tracker hooks in here).
class UpdateObserver {
 public:
  virtual ~UpdateObserver() = default;
  // Called when an UPDATE or a WRITE carrying a tile id has been performed in memory.
  virtual void update_done(const MemRequest& req) = 0;
};

}  // namespace t3sim::common
