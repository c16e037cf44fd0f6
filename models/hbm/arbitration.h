// Arbitration policies of an HBM channel controller (Ramulator-2-like scheduler interface).
// Fidelity: byte-granular channel service. The controller keeps four age-ordered sub-queues
// (read/write x compute/communication) and shows the policy the oldest entry of each and the bytes
// still to transfer; the policy picks a sub-queue head and the bus serves it until it is done or a
// re-arbitration (an arrival the policy says may preempt) stops it at a burst boundary; the
// partially served head keeps its place and its remaining bytes (preemptive-resume). UPDATEs live
// in the write queue. Invariants: a policy only ever names a non-empty sub-queue. Sources:
// Ramulator 2 IScheduler/FRFCFS (shape of the interface), T3 §4.5 (MCA; t3-paper.md §3.7).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "models/common/memory.h"
#include "sim/units.h"

namespace t3sim::hbm {

enum class BusDir : uint8_t { kNone, kRead, kWrite };

// Sub-queue index = direction * 2 + group; group 0 = compute (common::is_compute), 1 =
// communication.
enum class SubQueue : uint8_t { kComputeRead, kCommRead, kComputeWrite, kCommWrite };
inline constexpr size_t kNumSubQueues = 4;
inline constexpr uint8_t kAllSubQueues = 0xf;
inline constexpr uint8_t kComputeMask = 0b0101;
inline constexpr uint8_t kCommMask = 0b1010;
inline constexpr uint8_t kReadMask = 0b0011;
inline constexpr uint8_t kWriteMask = 0b1100;

constexpr uint8_t bit(SubQueue q) { return static_cast<uint8_t>(1u << static_cast<unsigned>(q)); }
constexpr uint8_t bit(int q) { return static_cast<uint8_t>(1u << static_cast<unsigned>(q)); }
constexpr BusDir direction(common::MemCmd c) {
  return c == common::MemCmd::kRead ? BusDir::kRead : BusDir::kWrite;
}
constexpr SubQueue sub_queue_of(const common::MemRequest& r) {
  const unsigned dir = r.cmd == common::MemCmd::kRead ? 0 : 1;
  return static_cast<SubQueue>(dir * 2 + (common::is_compute(r.cls) ? 0 : 1));
}
constexpr bool is_comm(int q) { return (kCommMask & bit(q)) != 0; }

// A queued request with its arrival sequence number (ties in enqueue time are broken by seq) and
// the bytes it still has to move over the bus.
struct Queued {
  common::MemRequest req;
  uint64_t seq = 0;
  uint32_t remaining = 0;
};

// What a policy sees when it arbitrates. Byte counts are bytes still to transfer.
struct ChannelView {
  Tick now;
  BusDir last_dir = BusDir::kNone;                  // direction of the last transfer
  std::array<const Queued*, kNumSubQueues> head{};  // oldest entry per sub-queue, nullptr if empty
  std::array<uint64_t, kNumSubQueues> bytes{};      // queued bytes per sub-queue
  uint64_t read_capacity = 0;                       // bytes
  uint64_t write_capacity = 0;                      // bytes
  uint8_t hit_mask = 0;  // bank fidelity: sub-queues whose head's next chunk finds its row open

  uint64_t bytes_in(uint8_t mask) const {
    uint64_t n = 0;
    for (size_t q = 0; q < kNumSubQueues; ++q) {
      if (mask & (1u << q)) n += bytes[q];
    }
    return n;
  }
  uint64_t queued() const { return bytes_in(kAllSubQueues); }
  // Sub-queue in `mask` whose head is oldest, or -1 if all of them are empty.
  int oldest_in(uint8_t mask) const {
    int best = -1;
    for (size_t q = 0; q < kNumSubQueues; ++q) {
      if (!(mask & (1u << q)) || head[q] == nullptr) continue;
      if (best < 0 || head[q]->seq < head[static_cast<size_t>(best)]->seq) {
        best = static_cast<int>(q);
      }
    }
    return best;
  }
};

// A policy's answer: serve the head of `pick` for at most `grant` bytes (0: until it is done; the
// controller re-arbitrates when the grant is used up, the head keeping its place), or idle until
// `wake` (Tick::max() = until an arrival).
struct Decision {
  int pick = -1;
  Tick wake = Tick::max();
  uint64_t grant = 0;
  static Decision issue(int q, uint64_t grant = 0) { return Decision{q, Tick::max(), grant}; }
  static Decision idle_until(Tick t) { return Decision{-1, t, 0}; }
  bool issues() const { return pick >= 0; }
};

// Contract: one instance per channel (it may keep per-channel state). pick() is called when the
// bus is free (nothing in service) and at least one request is queued; it returns a non-empty
// sub-queue or an idle time strictly after v.now (or Tick::max()); the controller re-asks at that
// time and on every arrival. preempts() must not change state: true if an arrival into `arrived`
// may make pick() choose another sub-queue than `serving` (the controller then re-arbitrates at the
// next burst boundary; a false positive costs one event, a false negative delays the switch to the
// end of the current transfer). on_service() reports each served segment [start, end) and its
// bytes. admit() gates entry to the queue besides capacity: `occupancy` = bytes queued in the
// channel (read + write); a refused requester waits for space exactly as if the queue were full.
class ArbitrationPolicy {
 public:
  virtual ~ArbitrationPolicy() = default;
  virtual std::string_view name() const = 0;
  virtual Decision pick(const ChannelView& v) = 0;
  virtual bool preempts(const ChannelView& /*v*/, int /*serving*/, int /*arrived*/) const {
    return false;
  }
  virtual bool admit(const common::MemRequest& /*req*/, uint64_t /*occupancy*/, Tick /*now*/) {
    return true;
  }
  // After a refusal by admit(): the time at which a retry will be admitted regardless (the
  // controller re-offers its waiters then), or Tick::max() if none.
  virtual Tick readmit_at() const { return Tick::max(); }
  virtual void on_service(const common::MemRequest& /*req*/, uint64_t /*bytes*/, Tick /*start*/,
                          Tick /*end*/) {}
};

}  // namespace t3sim::hbm
