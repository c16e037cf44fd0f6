// The mode table: one row per execution mode (see mode.h).
#include "models/system/mode.h"

#include <array>

#include "models/system/mode_runners.h"
#include "sim/errors.h"

namespace t3sim::system {
namespace {

constexpr std::array<ModeSpec, 9> kModes{{
    {Mode::kSequential, "sequential", "GEMM on all CUs, then ring RS and ring AG (CU kernels)",
     true, RsFusion::kNone, "", &run_sequential, &compose_sequential, Piece::kRsCu},
    {Mode::kIdeal, "ideal",
     "max(GEMM alone, CU RS alone) + AG: perfect overlap, no contention (t3 can beat it: its NMC "
     "RS moves less data than the CU RS)",
     false, RsFusion::kNone, "", &run_composed, &compose_ideal_cu, Piece::kRsCu},
    {Mode::kIdealNmc, "ideal-nmc", "as ideal with an NMC (DMA + UPDATE) reduce-scatter", false,
     RsFusion::kNone, "", &run_composed, &compose_ideal_nmc, Piece::kRsNmc},
    {Mode::kT3, "t3",
     "fused GEMM-RS: tracker, triggered DMA and NMC on the ring (the planner's rings; direct "
     "UPDATEs on a full mesh); then AG",
     true, RsFusion::kRing, "", &run_fused, nullptr, Piece::kRsCu},
    {Mode::kT3Mca, "t3-mca", "t3 with MCA memory-controller arbitration during the fused GEMM-RS",
     true, RsFusion::kRing, "mca", &run_fused, nullptr, Piece::kRsCu},
    {Mode::kCuSplit, "cu-split", "GEMM and the all-reduce kernel concurrently, AR on ar_cus CUs",
     true, RsFusion::kNone, "", &run_cu_split, nullptr, Piece::kArCu},
    {Mode::kDecomposed, "decomposed",
     "GEMM in k chunks, each chunk's RS overlapped with the next chunk's GEMM", true,
     RsFusion::kNone, "", &run_decomposed, nullptr, Piece::kRsCu},
    {Mode::kT3Direct, "t3-direct", "fused GEMM-RS with direct UPDATEs to the chunk owner (switch)",
     true, RsFusion::kDirect, "", &run_fused, nullptr, Piece::kRsCu},
    {Mode::kT3Nvls, "t3-nvls",
     "fused GEMM-RS with in-switch reduction: the tracker triggers each tile's copy into the "
     "NVSwitch, which reduces all GPUs' copies and writes one to the chunk owner",
     true, RsFusion::kNvls, "", &run_fused, nullptr, Piece::kRsCu},
}};

}  // namespace

std::span<const ModeSpec> mode_table() { return kModes; }

const ModeSpec& mode_spec(Mode m) {
  for (const auto& row : kModes) {
    if (row.mode == m) return row;
  }
  throw ModelError("system", "mode " + std::to_string(static_cast<int>(m)) + " has no table row");
}

std::string_view to_string(Mode m) {
  for (const auto& row : kModes) {
    if (row.mode == m) return row.name;
  }
  return "?";
}

std::optional<Mode> parse_mode(std::string_view name) {
  for (const auto& row : kModes) {
    if (row.name == name) return row.mode;
  }
  return std::nullopt;
}

std::vector<Mode> all_modes() {
  std::vector<Mode> v;
  for (const auto& row : kModes) v.push_back(row.mode);
  return v;
}

std::vector<std::string_view> mode_names() {
  std::vector<std::string_view> v;
  for (const auto& row : kModes) v.push_back(row.name);
  return v;
}

std::string mode_list(std::string_view sep) {
  std::string s;
  for (const auto& row : kModes) {
    if (!s.empty()) s += sep;
    s += row.name;
  }
  return s;
}

}  // namespace t3sim::system
