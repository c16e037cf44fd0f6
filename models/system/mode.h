// Execution modes of one tensor-parallel sublayer (GEMM followed by an all-reduce), selectable by
// name: the T3 paper's five configurations (t3-paper.md §4.4) plus the CU-split study of its
// Fig. 6, software decomposition (Wang et al. ASPLOS'23 / Async-TP style) and T3 on a switch.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace t3sim::system {

enum class Mode {
  kSequential,  // GEMM on all CUs -> ring RS (CU kernel) -> ring AG
  kIdeal,       // max(GEMM alone, RS alone) + AG: perfect overlap, no contention
  kIdealNmc,    // as kIdeal with an NMC (DMA + UPDATE) reduce-scatter
  kT3,          // fused GEMM-RS: tracker + triggered DMA + NMC; then AG
  kT3Mca,       // kT3 with MCA memory-controller arbitration
  kCuSplit,     // GEMM and the all-reduce kernel concurrently, AR on ar_cus CUs
  kDecomposed,  // GEMM in k chunks, each chunk's RS overlapped with the next chunk's GEMM
  kT3Direct,    // fused GEMM-RS with direct UPDATEs to the chunk owner (switch topologies)
};

std::string_view to_string(Mode m);
std::optional<Mode> parse_mode(std::string_view name);
std::vector<Mode> all_modes();
std::vector<std::string_view> mode_names();

}  // namespace t3sim::system
