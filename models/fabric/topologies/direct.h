// Direct-connect topologies without an NVSwitch plane, on which the NCCL-like ring planner
// (collectives/channel_plan.h) has real choices to make. torus_2d: rows x cols GPUs (GPU g at row
// g / cols, column g % cols), a full-duplex link to each of the four neighbours with wrap-around; a
// dimension of 2 gets one link per neighbour pair, not two. cube_mesh: NVIDIA DGX-1V's hybrid
// cube-mesh of 8 GPUs, quads {0..3} and {4..7} fully connected plus i <-> i+4, a pair joined by
// two NVLinks modelled as one link of twice fabric.link's bandwidth (validation/reference/
// hardware.md §2.1). nvlink_pairs: a PCIe host whose GPUs 2k and 2k+1 share an NVLink bridge
// (fabric.link) and all hang off one non-blocking PCIe switch (fabric.switch; port rate, latency
// paid on its egress; hardware.md §2.2). None maps onto itself under a rotation of GPU ids, so none
// declares a symmetry for folded runs. torus_2d owns the key "rows". Contract: builders describe
// wires and never route; sizes pass their checks first.
#pragma once

#include <optional>

#include "models/fabric/builders.h"
#include "models/fabric/specs.h"
#include "models/fabric/topology.h"
#include "sim/params.h"

namespace t3sim::fabric {

// Each topology's bad sizes (the key to blame and why), if any.
void declare_torus_2d(Params& p);
std::optional<SizeProblem> check_torus_2d(const FabricConfig& c);
Topology build_torus_2d(const FabricConfig& c);
std::optional<SizeProblem> check_cube_mesh(const FabricConfig& c);
Topology build_cube_mesh(const FabricConfig& c);
std::optional<SizeProblem> check_nvlink_pairs(const FabricConfig& c);
Topology build_nvlink_pairs(const FabricConfig& c);

// The DGX-1V NVLink count of GPU pair (a, b): 0, 1 or 2 (0 for a == b or ids outside 0..7).
int cube_mesh_links(int a, int b);

}  // namespace t3sim::fabric
