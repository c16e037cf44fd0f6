// `t3sim describe systems` and `t3sim describe SYSTEM`: the shipped systems, and what one system
// config resolves to once its presets are merged and bound: GPU, HBM, the fabric as built (edge
// bandwidths after switch-port caps), DMA engines and the collective library. --json prints the
// resolved config itself.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cli/common.h"
#include "cli/describe_system.h"
#include "models/collectives/channel_plan.h"
#include "models/fabric/builders.h"
#include "models/fabric/specs.h"
#include "models/system/system.h"
#include "sim/simulator.h"
#include "sim/units_parse.h"

namespace t3sim::cli {
namespace {

// Edge bandwidths of the built fabric: "GPU -> switch" style class -> (bandwidth -> count). Reads
// the system's own topology: a second copy would double the memory of a large fabric (a
// 4096-GPU full mesh holds 16.8 million edges).
void print_fabric(const ConfigDoc& doc, const fabric::Topology& topo) {
  const fabric::FabricConfig cfg = system::system_fabric(doc);
  const int gpus = system::system_gpus(doc);
  std::printf("fabric:       %s, link %s per direction, latency %s", cfg.topology.c_str(),
              format_bandwidth(cfg.link.bandwidth).c_str(),
              format_duration(cfg.link.latency).c_str());
  if (cfg.nvswitch) {
    std::printf("; switch port %s, %d ports",
                format_bandwidth(cfg.nvswitch->port_bandwidth).c_str(), cfg.nvswitch->ports);
  }
  if (cfg.nic) std::printf("; NIC %s effective", format_bandwidth(cfg.nic->effective()).c_str());
  std::printf("\n");
  // Each node's class once ("GPU", or its name without trailing digits, so that "nvswitch0" and
  // "nvswitch1" count as one), then edges counted by (class pair, bandwidth): linear in the edges.
  std::vector<std::string> class_names;
  std::map<std::string, uint32_t> class_ids;
  std::vector<uint32_t> node_class(topo.nodes.size());
  for (size_t n = 0; n < topo.nodes.size(); ++n) {
    std::string c = n < static_cast<size_t>(gpus) ? std::string("GPU") : topo.nodes[n].name;
    while (!c.empty() && std::isdigit(static_cast<unsigned char>(c.back()))) c.pop_back();
    const auto [it, added] = class_ids.emplace(c, static_cast<uint32_t>(class_names.size()));
    if (added) class_names.push_back(c);
    node_class[n] = it->second;
  }
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, uint64_t> by_ids;
  for (const auto& e : topo.edges) {
    ++by_ids[{node_class[e.from], node_class[e.to], e.bandwidth.bytes_per_second()}];
  }
  std::map<std::pair<std::string, uint64_t>, uint64_t> classes;
  for (const auto& [k, n] : by_ids) {
    const auto& [from, to, bw] = k;
    classes[{class_names[from] + " -> " + class_names[to], bw}] += n;
  }
  for (const auto& [k, n] : classes) {
    std::printf("  built edges: %llu x %s at %s\n", static_cast<unsigned long long>(n),
                k.first.c_str(), format_bandwidth(Bandwidth::bytes_per_s(k.second)).c_str());
  }
  // On nvlink_pairs the "switch" is the PCIe switch and the link the NVLink bridge: separate wires.
  if (cfg.nvswitch && cfg.topology != "nvlink_pairs" &&
      cfg.nvswitch->port_bandwidth <= cfg.link.bandwidth) {
    std::printf(
        "  GPU links run at min(link, switch port): the switch port caps them at %s, so "
        "a faster fabric.link.bandwidth changes nothing\n",
        format_bandwidth(cfg.nvswitch->port_bandwidth).c_str());
  }
}

// The ring channels a collective over the first node's GPUs runs (channel_plan.h), printed as
// NCCL_DEBUG=INFO prints its rings: "Channel 00/16 : 0 1 2 ...".
void print_ring_plan(system::System& sys, const collectives::LibraryConfig& c) {
  const int local = c.gpus_per_node == 0 ? sys.num_gpus() : static_cast<int>(c.gpus_per_node);
  const collectives::RankPath path = [&](int a, int b) { return sys.fabric().path_links(a, b); };
  if (c.ring_direction != collectives::RingDirection::kPlanned) {
    std::printf("ring plan:    ring_direction %s: the group's order only, one direction\n",
                c.ring_direction == collectives::RingDirection::kForward ? "forward" : "backward");
    return;
  }
  const collectives::ChannelPlan plan = collectives::plan_rings(local, path, c.channels);
  if (!plan.searched) {
    std::printf("ring plan:    group order (the search found no ring on %d GPUs)\n", local);
    return;
  }
  const auto loads = collectives::ring_link_load(plan, path);
  Bandwidth peak;
  for (const auto& [id, bw] : loads) peak = std::max(peak, bw);
  std::printf(
      "ring plan:    %u ring(s) over one node's %d GPUs at %s each, %zu distinct (search on "
      "directed links; busiest link carries %s)\n",
      plan.found(), local, format_bandwidth(plan.speed).c_str(), plan.rings.size(),
      format_bandwidth(peak).c_str());
  const std::vector<collectives::RingOrder> per_channel = plan.channel_rings(c.channels);
  for (uint32_t ch = 0; ch < c.channels; ++ch) {
    const collectives::RingOrder& r = per_channel[ch];
    const int dir = collectives::ChannelPlan::direction(r);
    std::string order;
    for (const int rank : r) order += " " + std::to_string(rank);
    std::printf("  Channel %02u/%02u :%s (%s)\n", ch, c.channels, order.c_str(),
                dir > 0 ? "forward" : (dir < 0 ? "backward" : "other order"));
  }
}

void print_system(const ConfigDoc& doc) {
  Simulator sim;
  system::System sys(sim, ConfigNode::root(doc), 0, system::BuildFor::kCheck);
  const gpu::GpuSpec& g = sys.gpu_spec();
  const double peak = static_cast<double>(g.cus) * g.flops_per_cu_cycle *
                      static_cast<double>(g.clock.count_hz()) * g.efficiency / 1e12;
  std::printf("system:       %s (%s), %d GPUs\n", sys.name().c_str(), doc.file.c_str(),
              sys.num_gpus());
  if (doc.root.contains("description") && doc.root["description"].is_string()) {
    std::printf("              %s\n", doc.root["description"].get<std::string>().c_str());
  }
  std::printf(
      "gpu:          %u CUs at %s, %.0f TFLOP/s dense FP16 at efficiency %.3f, L2 %s, "
      "tile %ux%u\n",
      g.cus, format_frequency(g.clock).c_str(), peak, g.efficiency, format_bytes(g.l2).c_str(),
      g.tile_m, g.tile_n);
  std::printf("dma:          %u engines x %s, setup %s\n", g.dma.engines,
              format_bandwidth(g.dma.bandwidth).c_str(), format_duration(g.dma.setup).c_str());
  const hbm::HbmConfig& h = sys.hbm(0).config();
  std::printf(
      "hbm:          %u stacks x %u channels, %s peak x %.3f efficiency, policy %s, "
      "update %s\n",
      h.stacks, h.channels_per_stack, format_bandwidth(h.bandwidth).c_str(), h.efficiency,
      h.policy.c_str(), h.resolved.value("update", std::string("?")).c_str());
  print_fabric(doc, sys.fabric().topology());
  const collectives::LibraryConfig c = sys.collectives();
  std::printf("collectives:  algorithm %s, protocol %s, executor %s, %u channels\n",
              collectives::to_string(c.algo), collectives::to_string(c.protocol),
              collectives::to_string(c.executor), c.channels);
  print_ring_plan(sys, c);
}

}  // namespace

void list_systems(const Env& env) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(env.configs_dir / "systems")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const ConfigDoc doc = load_config(f, {env.configs_dir});
    std::printf("%-22s %s\n", f.stem().c_str(),
                doc.root.value("description", std::string()).c_str());
  }
}

bool is_system(const Env& env, const std::string& name) {
  return std::filesystem::exists(env.configs_dir / "systems" / (name + ".json")) ||
         (name.size() > 5 && name.ends_with(".json") && std::filesystem::exists(name));
}

void describe_system(const Env& env, const std::string& name, const std::vector<std::string>& sets,
                     bool json) {
  const ConfigDoc doc = load_system(env, name, sets);
  if (json) {
    std::cout << doc.root.dump(2) << "\n";
    return;
  }
  print_system(doc);
}

}  // namespace t3sim::cli
