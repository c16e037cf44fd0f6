// Fabric: the interconnect between GPUs, one component implementing common::FabricApi. Messages are
// split into packets of `packet_size` and forwarded store-and-forward per packet along a static
// shortest path, so P packets over H equal hops take (P + H - 1) packet times + H latencies. Each
// link direction is a sim/port.h Link (serialisation, latency, credits, stats) fed by an Egress
// that round-robins between flows. Fidelity: lossless, static routes, non-blocking crossbars (only
// ports serialise); src == dst skips links and takes `local_latency`. Invariants, checked by
// finish(): nothing in flight, bytes sent == received, link bytes == sum of message bytes x hops.
// Sources: T3's ring (t3-paper.md §4.1), hardware.md §1–§3; values in configs/presets/links.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/common/fabric_api.h"
#include "models/common/mirror.h"
#include "models/fabric/egress.h"
#include "models/fabric/flow_table.h"
#include "models/fabric/fluid.h"
#include "models/fabric/node.h"
#include "models/fabric/routing.h"
#include "models/fabric/switch_reducer.h"
#include "models/fabric/switch_reduction.h"
#include "models/fabric/topology.h"
#include "sim/component.h"
#include "sim/port.h"

namespace t3sim::fabric {

class Fabric final : public Component,
                     public common::FabricApi,
                     private Receiver<Packet>,
                     private FluidSink {
 public:
  // `wired` = false builds the graph and the routes (every reachability check) but no links: a
  // validation-only fabric (`t3sim check`) whose send() is a ModelError.
  Fabric(Simulator& sim, Component* parent, std::string name, Topology topo,
         nlohmann::ordered_json resolved_config = {}, bool wired = true);
  ~Fabric() override;

  // common::FabricApi. Contract: see models/common/fabric_api.h; delivered() runs at the arrival
  // of the last byte; an unknown GPU id is a ModelError.
  int num_gpus() const override { return topo_.num_gpus; }
  void send(int src, int dst, Bytes bytes, common::FabricReceiver* rx, uint64_t tag) override;
  bool has_switch_segments() const override { return fluid_ == nullptr; }
  void send_segment(int src, int dst, common::PathSegment seg, Bytes bytes,
                    common::FabricReceiver* rx, uint64_t tag) override;
  bool has_switch_reduction() const override {
    return reductions_ != nullptr && reductions_->available();
  }
  // In-switch reduction (switch_reduction.h); packet model, switches with reduce_bandwidth.
  void reduce_in_switch(int src, int via, const common::SwitchReduction& r,
                        common::FabricReceiver* up_rx, uint64_t up_tag) override;
  // The in-switch reduction service (nullptr on a flow-level or validation-only fabric).
  const SwitchReductions* switch_reductions() const { return reductions_.get(); }
  Bandwidth path_bandwidth(int src, int dst) const override;  // unbounded for src == dst
  Duration path_latency(int src, int dst) const override;     // sum of link latencies
  int hops(int src, int dst) const override;
  std::vector<common::PathLink> path_links(int src, int dst) const override;
  // Empty for ring, fully connected, switch and two-level fabrics (links map onto links under
  // symmetry()); on a leaf-spine fabric, fold_routes.cpp compares every GPU's routes with their
  // rotations onto its representative's hop by hop: same link parameters, and the same pairs
  // sharing each link.
  std::string fold_problem(const std::vector<std::pair<int, int>>& rep_pairs,
                           const common::GpuRotation& rot) const override;

  uint64_t bytes_sent(int gpu) const;
  uint64_t bytes_received(int gpu) const;
  uint64_t total_link_bytes() const;
  uint64_t messages_in_flight() const {
    return fluid_ ? fluid_->messages_in_flight() : flows_.messages_in_flight();
  }
  // The flow-level transport when the config asks for "model": "flow" (else nullptr).
  const FluidNet* fluid() const { return fluid_.get(); }

  const Topology& topology() const { return topo_; }
  // The rotations that map this fabric's GPUs onto themselves (models/common/mirror.h), if any: one
  // over every GPU, or node x local on a two-level or leaf-spine fabric (the latter maps links
  // onto links only for traffic fold_problem() accepts). Collective folding uses it.
  std::optional<common::GpuRotation> symmetry() const;
  // GPUs per node (two_level), 0 when every GPU is in one node.
  int gpus_per_node() const { return topo_.gpus_per_node; }
  const RouteTable& routes() const { return routes_; }
  const nlohmann::ordered_json& resolved_config() const { return resolved_; }
  size_t num_links() const { return links_.size(); }
  // Link of topology edge `e` (same index); packet model only (a flow-level fabric has no links).
  const Link<Packet>& link(size_t e) const;
  // Time link `e` spent serialising so far (utilisation = busy / elapsed).
  Duration link_busy(size_t e) const;
  // Edge id of the link from node `from` to node `to` (component names), if any.
  std::optional<size_t> find_link(const std::string& from, const std::string& to) const;
  const Node& node(size_t id) const { return *nodes_[id]; }
  // Installs (or clears, with nullptr) the reduction hook of switch node `switch_name`; packet
  // model only (ModelError on a flow-level fabric).
  void set_switch_reducer(const std::string& switch_name, SwitchReducer* reducer);

  void finish() override;

 private:
  void receive(Packet& p) override;
  void fluid_delivered(int src, int dst, Bytes bytes, common::FabricReceiver* rx,
                       uint64_t tag) override;
  void build_links();
  void register_stats();
  void check_gpu(int gpu, const char* role) const {
    if (gpu < 0 || gpu >= topo_.num_gpus) bad_gpu(gpu, role);
  }
  [[noreturn]] void bad_gpu(int gpu, const char* role) const;
  void deliver_local(uint64_t msg);
  void complete(uint32_t msg, uint32_t at);  // delivered at node `at`

  Topology topo_;
  RouteTable routes_;
  FlowTable flows_;
  nlohmann::ordered_json resolved_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<Link<Packet>>> links_;  // children of nodes_: destroyed first
  std::vector<InPort<Packet>*> inputs_;               // per edge: the receiving port
  std::vector<std::unique_ptr<Egress>> egress_;       // per edge
  std::vector<SwitchReducer*> reducers_;              // per node (nullptr: none)
  std::unique_ptr<FluidNet> fluid_;
  std::unique_ptr<SwitchReductions> reductions_;
  Counter messages_;
  Counter packets_;
  Counter expected_link_bytes_;
  bool wired_ = true;
};

}  // namespace t3sim::fabric
