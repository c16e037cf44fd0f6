// Per-flow, per-hop transport state with no per-packet records. A flow = one (src, dst) GPU pair;
// its messages form a FIFO list. Each hop of its path is a "slot": a count of packets arrived there
// and not yet sent, and a cursor (message, packet index) naming the next to leave. Packets of a
// flow cross each link in order, so count + cursor describe the hop's queue exactly; a packet on
// the wire is just (slot, message, bytes, last). Fidelity: messages split into `packet_size`
// packets (last one shorter; an empty message is one empty packet). Contract: take() needs ready >
// 0; messages of a flow complete in send order; ids are recycled (no allocation once at the peak in
// flight). A flow's slots are created, contiguous, by its first message: memory follows the pairs
// that talk, not num_gpus^2 x path length. Speed: a message finds its flow in a small
// direct-mapped cache, else with one hash lookup (add), and keeps the flow's index, so
// first_slot_of() and complete() look nothing up.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "models/common/fabric_api.h"
#include "models/fabric/routing.h"
#include "sim/units.h"

namespace t3sim::fabric {

inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// What a link carries: the hop (slot) it was sent from, the message it belongs to, its size and
// whether it is the message's last packet.
struct Packet {
  uint32_t slot = 0;
  uint32_t msg = 0;
  uint32_t bytes = 0;
  uint32_t last = 0;
};

using Segment = common::PathSegment;

struct Message {
  int src = 0;
  int dst = 0;
  uint32_t flow = 0;  // index of its flow (a segment's flow is its own, with its own FIFO)
  Bytes bytes;
  uint32_t packets = 0;
  uint32_t next = kNone;  // next message of the same flow
  common::FabricReceiver* rx = nullptr;
  uint64_t tag = 0;
};

struct Slot {
  uint32_t edge = 0;          // link this hop sends on
  uint32_t upstream = kNone;  // link the packets arrived on (kNone at the source)
  uint32_t ready = 0;         // packets here, not yet sent
  uint32_t cur_msg = kNone;   // next packet to send: message ...
  uint32_t cur_pkt = 0;       // ... and packet index within it
  bool last_hop = false;      // the link of this hop ends at the destination GPU
};

class FlowTable {
 public:
  FlowTable(const RouteTable& routes, Bytes packet_size);

  // A new message; for src != dst it joins its flow and hop 0 gets all its packets. Returns its id.
  uint32_t add(int src, int dst, Bytes bytes, common::FabricReceiver* rx, uint64_t tag,
               Segment seg = Segment::kWhole);
  // The flow's first slot, creating its slots on first use (src != dst).
  uint32_t first_slot(int src, int dst, Segment seg = Segment::kWhole);
  // The first slot of message m's flow (src != dst).
  uint32_t first_slot_of(uint32_t m) const { return flows_[msgs_[m].flow].first; }
  // The next packet leaving `slot` (ready must be > 0); advances the cursor.
  Packet take(uint32_t slot);
  // One packet reached `slot`'s node; true if the slot was empty (its egress must be told).
  bool arrive(uint32_t slot) { return slots_[slot].ready++ == 0; }
  // The message was delivered: unlinks it from its flow, recycles the id, returns a copy.
  Message complete(uint32_t msg);

  const Slot& slot(uint32_t s) const { return slots_[s]; }
  uint32_t num_slots() const { return static_cast<uint32_t>(slots_.size()); }
  const Message& message(uint32_t m) const { return msgs_[m]; }
  uint64_t messages_in_flight() const { return msgs_.size() - free_.size(); }
  Bytes packet_size() const { return packet_size_; }

 private:
  struct Flow {
    uint32_t head = kNone;
    uint32_t tail = kNone;
    uint32_t first = 0;  // first slot
    uint32_t hops = 0;
  };
  uint32_t allocate();
  uint32_t key(int src, int dst, Segment seg) const;
  uint32_t flow(int src, int dst, Segment seg);  // its index in flows_

  const RouteTable& routes_;
  Bytes packet_size_;
  std::vector<Slot> slots_;
  std::vector<Flow> flows_;                       // in order of first use
  std::unordered_map<uint32_t, uint32_t> index_;  // key() -> index in flows_
  // A direct-mapped cache in front of index_ (a flow's key, kNone if empty, and its index): the
  // pairs a collective sends on repeat, so most messages skip the hash lookup.
  struct CacheLine {
    uint32_t key = kNone;
    uint32_t flow = 0;
  };
  static constexpr uint32_t kCacheLines = 64;
  std::array<CacheLine, kCacheLines> cache_{};
  std::vector<Message> msgs_;
  std::vector<uint32_t> free_;
};

}  // namespace t3sim::fabric
