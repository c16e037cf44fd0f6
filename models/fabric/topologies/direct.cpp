#include "models/fabric/topologies/direct.h"

#include <array>
#include <string>

#include "models/fabric/build_parts.h"
#include "models/fabric/topologies/basic.h"

namespace t3sim::fabric {
namespace {

struct CubeMeshPair {
  int a;
  int b;
  int links;  // NVLinks joining a and b
};

// DGX-1 with V100 (nvidia-smi topo -m of a DGX-1V; validation/reference/hardware.md §2.1): six
// NVLinks per GPU over four peers; pairs in build order.
constexpr std::array<CubeMeshPair, 16> kCubeMesh{{
    {0, 1, 1},
    {0, 2, 1},
    {0, 3, 2},
    {0, 4, 2},
    {1, 2, 2},
    {1, 3, 1},
    {1, 5, 2},
    {2, 3, 2},
    {2, 6, 1},
    {3, 7, 1},
    {4, 5, 1},
    {4, 6, 1},
    {4, 7, 2},
    {5, 6, 2},
    {5, 7, 1},
    {6, 7, 2},
}};
constexpr int kCubeMeshGpus = 8;

TopoEdge link_edge(const LinkSpec& l, uint64_t links = 1) {
  return make_edge(l.bandwidth * links, l.latency, l.credits);
}

}  // namespace

int cube_mesh_links(int a, int b) {
  for (const CubeMeshPair& p : kCubeMesh) {
    if ((p.a == a && p.b == b) || (p.a == b && p.b == a)) return p.links;
  }
  return 0;
}

void declare_torus_2d(Params& p) {
  p.required("rows", ParamKind::kInt,
             "rows of the grid; columns = gpus / rows (each dimension at least 2)")
      .range(0, kMaxGpus);
}

std::optional<SizeProblem> check_torus_2d(const FabricConfig& c) {
  const int64_t rows = c.own.integer("rows");
  const std::string shape =
      "rows = " + std::to_string(rows) + " with gpus = " + std::to_string(c.gpus);
  if (rows < 2) {
    return SizeProblem{"rows",
                       "'rows' must be at least 2 (a torus with one row is a ring: use "
                       "topology ring)"};
  }
  if (c.gpus % rows != 0) {
    return SizeProblem{"rows", shape + ": rows must divide gpus (columns = gpus / rows)"};
  }
  if (c.gpus / rows < 2) {
    return SizeProblem{"rows", shape +
                                   " leaves 1 column; each dimension needs at least 2 "
                                   "(a torus with one column is a ring: use topology ring)"};
  }
  return std::nullopt;
}

std::optional<SizeProblem> check_cube_mesh(const FabricConfig& c) {
  if (c.gpus == kCubeMeshGpus) return std::nullopt;
  return SizeProblem{"gpus",
                     "cube_mesh is DGX-1's hybrid cube-mesh of 8 GPUs: 'gpus' must be 8, not " +
                         std::to_string(c.gpus)};
}

std::optional<SizeProblem> check_nvlink_pairs(const FabricConfig& c) {
  if (c.gpus < 2 || c.gpus % 2 != 0) {
    return SizeProblem{"gpus",
                       "nvlink_pairs bridges GPUs 2k and 2k+1: 'gpus' must be even and at "
                       "least 2, not " +
                           std::to_string(c.gpus)};
  }
  return too_few_ports(c.gpus, c.nvswitch->ports, "switch", "PCIe switch");
}

// Each GPU links to its right and lower neighbour (wrapping); in a dimension of 2 the wrap-around
// neighbour is the same GPU, so only the first of the pair builds the link.
Topology build_torus_2d(const FabricConfig& c) {
  Topology t = start_topology(c, c.gpus);
  const int rows = static_cast<int>(c.own.integer("rows"));
  const int cols = c.gpus / rows;
  for (int g = 0; g < c.gpus; ++g) {
    const int r = g / cols;
    const int col = g % cols;
    if (cols > 2 || col + 1 < cols) {
      const int right = r * cols + (col + 1) % cols;
      t.add_duplex(static_cast<uint32_t>(g), static_cast<uint32_t>(right), link_edge(c.link),
                   link_edge(c.link));
    }
    if (rows > 2 || r + 1 < rows) {
      const int down = ((r + 1) % rows) * cols + col;
      t.add_duplex(static_cast<uint32_t>(g), static_cast<uint32_t>(down), link_edge(c.link),
                   link_edge(c.link));
    }
  }
  return t;
}

Topology build_cube_mesh(const FabricConfig& c) {
  Topology t = start_topology(c, kCubeMeshGpus);
  for (const CubeMeshPair& p : kCubeMesh) {
    const auto links = static_cast<uint64_t>(p.links);
    t.add_duplex(static_cast<uint32_t>(p.a), static_cast<uint32_t>(p.b), link_edge(c.link, links),
                 link_edge(c.link, links));
  }
  return t;
}

// Node ids: the GPUs, then the PCIe switch. A GPU's PCIe wire runs at the switch's port rate (its
// x16 slot), not at fabric.link's, without credits (fabric.link.credits is the NVLink buffer); the
// switch's latency is paid on its egress, as on an NVSwitch.
Topology build_nvlink_pairs(const FabricConfig& c) {
  Topology t = start_topology(c, c.gpus);
  const SwitchSpec& s = *c.nvswitch;
  const uint32_t sw = t.add_node(NodeKind::kPcieSwitch, "pcie_switch");
  for (int g = 0; g + 1 < c.gpus; g += 2) {
    t.add_duplex(static_cast<uint32_t>(g), static_cast<uint32_t>(g + 1), link_edge(c.link),
                 link_edge(c.link));
  }
  for (int g = 0; g < c.gpus; ++g) {
    t.add_duplex(static_cast<uint32_t>(g), sw, make_edge(s.port_bandwidth, c.link.latency, 0),
                 make_edge(s.port_bandwidth, c.link.latency + s.latency, 0));
  }
  return t;
}

}  // namespace t3sim::fabric
