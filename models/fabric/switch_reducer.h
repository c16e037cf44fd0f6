// Hook for in-switch reduction (NVLink SHARP / NCCL NVLS, hardware.md §5.1; in-switch reduction is
// T3's named alternative to near-memory updates, hardware.md §4.3). No implementation yet: this
// fixes where one plugs in. Fidelity today: observe-only; each packet crossing a switch node
// (NVSwitch or IB switch) is shown to that switch's reducer after arrival, before egress queueing.
// Contract: on_packet() runs synchronously in event order and must not send, drop or delay the
// packet. A reducing implementation needs a reduction message type in common::FabricApi (ask the
// models/common owner) so conservation accounting stays exact.
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
