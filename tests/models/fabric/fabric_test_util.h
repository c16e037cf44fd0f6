// Shared helpers of the fabric tests: build a Fabric from an in-memory config (presets resolve
// against the frozen tests/fixtures, or a folder given), record deliveries with their arrival
// time, and inject sends at given times.
// Link defaults: 64 GB/s, 500 ns, 64 KiB packets, so one packet serialises in exactly 1.024 us.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/common/fabric_api.h"
#include "models/fabric/factory.h"
#include "sim/config.h"
#include "sim/errors.h"
#include "sim/simulator.h"
#include "tests/support/fixtures.h"

namespace t3sim::fabric::testing {

struct Delivery {
  uint64_t tag;
  Tick at;
};

class Recorder final : public common::FabricReceiver {
 public:
  explicit Recorder(Simulator& sim) : sim_(sim) {}
  void delivered(uint64_t tag) override { log.push_back({tag, sim_.now()}); }
  Tick at(uint64_t tag) const {
    for (const auto& d : log) {
      if (d.tag == tag) return d.at;
    }
    return Tick::max();
  }
  std::vector<Delivery> log;

 private:
  Simulator& sim_;
};

inline nlohmann::json link_cfg(const std::string& bw = "64 GB/s", const std::string& lat = "500 ns",
                               const std::string& pkt = "64 KiB", int credits = 0) {
  return {{"bandwidth", bw}, {"latency", lat}, {"packet_size", pkt}, {"credits", credits}};
}

inline nlohmann::json ring_cfg(int gpus, nlohmann::json link = link_cfg()) {
  return {{"topology", "ring"}, {"gpus", gpus}, {"link", std::move(link)}};
}

inline nlohmann::json switch_cfg(int gpus, nlohmann::json link = link_cfg()) {
  return {{"topology", "switch"},
          {"gpus", gpus},
          {"link", std::move(link)},
          {"switch", {{"latency", "100 ns"}, {"port_bandwidth", "64 GB/s"}, {"ports", 16}}}};
}

inline nlohmann::json two_level_cfg(int nodes, int gpn) {
  return {{"topology", "two_level"},
          {"nodes", nodes},
          {"gpus_per_node", gpn},
          {"link", link_cfg("300 GB/s")},
          {"switch", {{"latency", "100 ns"}, {"port_bandwidth", "300 GB/s"}, {"ports", 8}}},
          {"nic", {{"bandwidth", "400 Gb/s"}, {"efficiency", 0.97}, {"latency", "600 ns"}}},
          {"ib_switch", {{"latency", "200 ns"}, {"port_bandwidth", "400 Gb/s"}, {"ports", 64}}}};
}

inline nlohmann::json torus_cfg(int gpus, int rows, nlohmann::json link = link_cfg()) {
  return {{"topology", "torus_2d"}, {"gpus", gpus}, {"rows", rows}, {"link", std::move(link)}};
}

inline nlohmann::json cube_mesh_cfg(nlohmann::json link = link_cfg("25 GB/s")) {
  return {{"topology", "cube_mesh"}, {"gpus", 8}, {"link", std::move(link)}};
}

// GPUs bridged in pairs at 300 GB/s, all on a 64 GB/s-per-port PCIe switch.
inline nlohmann::json nvlink_pairs_cfg(int gpus) {
  return {{"topology", "nvlink_pairs"},
          {"gpus", gpus},
          {"link", link_cfg("300 GB/s")},
          {"switch", {{"latency", "100 ns"}, {"port_bandwidth", "64 GB/s"}, {"ports", 16}}}};
}

// Rail-optimised leaf-spine: groups of `per_leaf` nodes, 8-port IB switches unless `ports` says.
inline nlohmann::json leaf_spine_cfg(int nodes, int gpn, int per_leaf, double oversub = 1.0,
                                     int ports = 8) {
  nlohmann::json c = two_level_cfg(nodes, gpn);
  c["topology"] = "leaf_spine";
  c["nodes_per_leaf"] = per_leaf;
  c["oversubscription"] = oversub;
  c["ib_switch"]["ports"] = ports;
  return c;
}

// A simulator, a fabric built from `cfg`, and a recorder, in one object.
struct Harness {
  explicit Harness(const nlohmann::json& cfg,
                   const std::filesystem::path& configs = t3sim::testing::fixtures_dir())
      : doc(config_from_json(cfg, "<test>", {configs})),
        fabric(make_fabric(sim, &sim.root(), ConfigNode::root(doc))) {}
  Tick run() {
    sim.run();
    sim.finish();
    return sim.now();
  }
  void send(int src, int dst, uint64_t bytes, uint64_t tag) {
    fabric->send(src, dst, Bytes(bytes), &rx, tag);
  }

  Simulator sim;
  ConfigDoc doc;
  std::unique_ptr<Fabric> fabric;
  Recorder rx{sim};
};

// Sends at chosen times (pooled one-shot events).
class Injector {
 public:
  struct Send {
    int src;
    int dst;
    uint64_t bytes;
    uint64_t tag;
  };
  Injector(Simulator& sim, common::FabricApi& fabric, common::FabricReceiver& rx)
      : sim_(sim), fabric_(fabric), rx_(rx) {}
  void at(Tick when, Send s) {
    sends_.push_back(s);
    sim_.call_at<Injector, &Injector::fire>(when, this, sends_.size() - 1);
  }
  const std::vector<Send>& sends() const { return sends_; }

 private:
  void fire(uint64_t i) {
    const Send& s = sends_[i];
    fabric_.send(s.src, s.dst, Bytes(s.bytes), &rx_, s.tag);
  }
  Simulator& sim_;
  common::FabricApi& fabric_;
  common::FabricReceiver& rx_;
  std::vector<Send> sends_;
};

// The one-line ConfigError message building a fabric from `cfg` raises ("" if it builds).
inline std::string config_error(const nlohmann::json& cfg) {
  try {
    Harness h(cfg);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace t3sim::fabric::testing
