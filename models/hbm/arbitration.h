// Arbitration policies of an HBM channel controller (Ramulator-2-like scheduler interface).
// Fidelity: channel level; there are no banks or rows, so two queued requests of the same bus
// direction and traffic group differ only in age. The controller therefore keeps four age-ordered
// sub-queues (read/write x compute/communication) and shows the policy the oldest entry of each:
// enough for every policy here (a bank-aware policy would need the whole queue). UPDATEs live in
// the write queue. Invariants: a policy only ever names a non-empty sub-queue. Sources: Ramulator 2
// IScheduler/FRFCFS (shape of the interface), T3 §4.5 (MCA; t3-paper.md §3.7).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
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
constexpr BusDir direction(common::MemCmd c) {
  return c == common::MemCmd::kRead ? BusDir::kRead : BusDir::kWrite;
}
constexpr SubQueue sub_queue_of(const common::MemRequest& r) {
  const unsigned dir = r.cmd == common::MemCmd::kRead ? 0 : 1;
  return static_cast<SubQueue>(dir * 2 + (common::is_compute(r.cls) ? 0 : 1));
}

// A queued request with its arrival sequence number (ties in enqueue time are broken by seq).
struct Queued {
  common::MemRequest req;
  uint64_t seq = 0;
};

// What a policy sees when the channel's bus is free.
struct ChannelView {
  Tick now;
  BusDir last_dir = BusDir::kNone;                  // direction of the last transfer
  std::array<const Queued*, kNumSubQueues> head{};  // oldest entry per sub-queue, nullptr if empty
  std::array<uint32_t, kNumSubQueues> count{};
  uint32_t read_capacity = 0;
  uint32_t write_capacity = 0;

  uint32_t reads() const { return count[0] + count[1]; }
  uint32_t writes() const { return count[2] + count[3]; }
  uint32_t queued() const { return reads() + writes(); }
  uint32_t count_in(uint8_t mask) const;
  // Sub-queue in `mask` whose head is oldest, or -1 if all of them are empty.
  int oldest_in(uint8_t mask) const;
};

// A policy's answer: issue the head of `pick`, or idle until `wake` (Tick::max() = until an
// arrival).
struct Decision {
  int pick = -1;
  Tick wake = Tick::max();
  static Decision issue(int q) { return Decision{q, Tick::max()}; }
  static Decision idle_until(Tick t) { return Decision{-1, t}; }
  bool issues() const { return pick >= 0; }
};

// Contract: one instance per channel (it may keep per-channel state). pick() is called only when
// the bus is free and at least one request is queued; it returns a non-empty sub-queue or an idle
// time strictly after v.now (or Tick::max()); the controller re-asks at that time and on every
// arrival. on_service() reports each request as it starts service on the bus, [start, end) of its
// occupancy.
class ArbitrationPolicy {
 public:
  virtual ~ArbitrationPolicy() = default;
  virtual std::string_view name() const = 0;
  virtual Decision pick(const ChannelView& v) = 0;
  // Admission into the channel's queue (besides capacity): `queued` = requests already queued.
  // A refused requester waits for space exactly as if the queue were full.
  virtual bool admit(const common::MemRequest& /*req*/, uint32_t /*queued*/) { return true; }
  virtual void on_service(const common::MemRequest&, Tick /*start*/, Tick /*end*/) {}
};

// Every knob of every policy, bound once by the Hbm from its parameters.
struct PolicyConfig {
  double write_high_watermark = 0.8;
  double write_low_watermark = 0.2;
  bool mca_dynamic = true;
  uint32_t mca_threshold = 16;
  Duration mca_window = Duration::us(5);
  Duration mca_starvation_limit = Duration::us(2);
  bool mca_compute_first = true;
};

// Builds the policy named `name` ("fr-fcfs" | "mca") for a channel with these queue capacities;
// returns nullptr for an unknown name.
std::unique_ptr<ArbitrationPolicy> make_policy(std::string_view name, const PolicyConfig& cfg,
                                               uint32_t read_capacity, uint32_t write_capacity);

}  // namespace t3sim::hbm
