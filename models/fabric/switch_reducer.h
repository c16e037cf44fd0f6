// Observe-only hook on the packets a switch forwards (NVSwitch or IB switch): each packet crossing
// a switch node is shown to that switch's observer after arrival, before egress queueing. The
// in-switch reduction itself (NVLink SHARP, hardware.md §5.1) is the fabric's reduction service,
// switch_reduction.h (common::FabricApi::reduce_in_switch), not this hook.
// Contract: on_packet() runs synchronously in event order and must not send, drop or delay the
// packet.
#pragma once

#include <cstdint>

#include "sim/units.h"

namespace t3sim::fabric {

struct SwitchPacket {
  int src_gpu = 0;
  int dst_gpu = 0;
  uint64_t message = 0;  // fabric-internal message id (recycled after delivery)
  Bytes bytes;
  bool last = false;  // last packet of its message
  Tick at;
};

class SwitchReducer {
 public:
  virtual ~SwitchReducer() = default;
  virtual void on_packet(const SwitchPacket& p) = 0;
};

}  // namespace t3sim::fabric
