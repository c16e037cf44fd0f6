// Flow-level (fluid) transport, the alternative to packets (fabric "model": "flow"): each (src,
// dst) pair streams its messages in send order; the pair's head message is a flow crossing the
// edges of its static route at a rate set by max-min fairness (progressive filling) over all
// active flows, recomputed only when a flow starts or ends, and only over the flows that share
// edges with it (transitively). A message is delivered when its last byte has been sent plus its
// route's latencies plus the store-and-forward fill of its first packet (sum over hops of
// packet / edge bandwidth, less the bottleneck's). Time and rates stay integers (bytes x ps/s).
// Contract: per-pair FIFO delivery, deterministic; no credits and no switch reducers (packet only).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "models/common/fabric_api.h"
#include "models/fabric/routing.h"
#include "models/fabric/topology.h"
#include "sim/event.h"
#include "sim/simulator.h"

namespace t3sim::fabric {

// Told when a message's last byte arrives at its destination.
class FluidSink {
 public:
  virtual ~FluidSink() = default;
  virtual void fluid_delivered(int src, int dst, Bytes bytes, common::FabricReceiver* rx,
                               uint64_t tag) = 0;
};

class FluidNet {
 public:
  FluidNet(Simulator& sim, const Topology& topo, const RouteTable& routes, FluidSink& sink);
  ~FluidNet();
  FluidNet(const FluidNet&) = delete;
  FluidNet& operator=(const FluidNet&) = delete;

  void send(int src, int dst, Bytes bytes, common::FabricReceiver* rx, uint64_t tag);
  uint64_t messages_in_flight() const { return in_flight_; }
  // Sum over finished transmissions of bytes x hops (the packet model's link bytes).
  uint64_t link_bytes() const { return link_bytes_; }
  // Current rate of the pair's head message (0 if the pair is idle): for tests.
  Bandwidth rate(int src, int dst) const;

 private:
  struct Msg {
    int src = 0;
    int dst = 0;
    Bytes bytes;
    common::FabricReceiver* rx = nullptr;
    uint64_t tag = 0;
    uint32_t next = UINT32_MAX;  // next message of the same pair
  };
  struct Flow;
  struct Pair {
    std::vector<uint32_t> path;  // edge ids of the pair's route
    uint32_t head = UINT32_MAX;  // transmitting (flow != none) or waiting
    uint32_t tail = UINT32_MAX;
    uint32_t flow = UINT32_MAX;
    Tick last_delivery;      // deliveries of a pair never overtake each other
    uint32_t narrowest = 0;  // edge: the route's narrowest hop (the last of equals)
  };

  uint32_t new_msg(const Msg& m);
  void start(Pair& p);
  void take_head(Flow& f, bool in_wake);
  void enter(Flow& f);
  void finished(Flow& f);
  void deliver(uint64_t msg);
  void reallocate(const std::vector<uint32_t>& seed_edges);
  void collect(const std::vector<uint32_t>& seed_edges);
  void fill();
  Duration alone_time(const std::vector<uint32_t>& path, Bytes bytes) const;
  Duration tail_delay(const std::vector<uint32_t>& path, uint32_t bottleneck, Bytes bytes) const;

  Simulator& sim_;
  const Topology& topo_;
  const RouteTable& routes_;
  FluidSink& sink_;
  std::vector<Msg> msgs_;
  std::vector<uint32_t> free_msgs_;
  std::unordered_map<uint64_t, Pair> pairs_;
  std::vector<std::unique_ptr<Flow>> flows_;
  std::vector<uint32_t> free_flows_;
  std::vector<std::vector<uint32_t>> on_edge_;  // active flows per edge
  // Scratch of one reallocation: the component's flows and edges, marks by epoch.
  std::vector<uint32_t> comp_flows_;
  std::vector<uint32_t> comp_edges_;
  std::vector<uint64_t> edge_mark_;
  std::vector<uint64_t> edge_cap_;
  std::vector<uint32_t> edge_left_;  // unfrozen flows per edge
  std::vector<uint32_t> stack_;
  std::vector<uint64_t> pending_rate_;  // per flow: the rate fill() gave it
  uint64_t epoch_ = 0;
  uint64_t in_flight_ = 0;
  uint64_t link_bytes_ = 0;
};

}  // namespace t3sim::fabric
