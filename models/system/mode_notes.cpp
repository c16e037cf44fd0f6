#include "models/system/mode_notes.h"

#include <array>

namespace t3sim::system {
namespace {

constexpr std::array<ModeNote, 9> kNotes{{
    {"sequential",
     "The baseline without overlap. The GEMM runs alone on every CU; when it ends, a ring "
     "reduce-scatter and then a ring all-gather run as NCCL-style CU kernels. Simulated: each "
     "piece is a simulation of the whole machine, and the total is their sum.",
     "Upper bound for every overlapping mode: overlap that makes a sublayer slower than this is "
     "contention costing more than the overlap saves."},
    {"ideal",
     "Composed, not simulated together: the GEMM alone, the CU ring reduce-scatter alone and the "
     "all-gather alone are simulated, and the total is max(GEMM, RS) + AG. That is perfect overlap "
     "of the GEMM with a CU reduce-scatter, with no contention for CUs, HBM or links.",
     "Lower bound for modes that overlap the GEMM with that same CU reduce-scatter (cu-split, "
     "decomposed). Not a bound for t3: t3 does a different reduce-scatter. Its GEMM stores are "
     "NMC updates that add partial sums beside the DRAM banks, and tracker-triggered DMAs forward "
     "finished tiles, so no CU kernel reads, adds and writes back every chunk. t3 moves less data "
     "through HBM and uses no CUs for communication, so it can finish before ideal. Compare t3 "
     "with "
     "ideal-nmc."},
    {"ideal-nmc",
     "As ideal, but with T3's reduce-scatter running alone: DMA engines forward the chunks and "
     "NMC UPDATEs add them in memory. Composed: max(GEMM alone, NMC RS alone) + AG.",
     "The reference for t3, t3-mca and t3-direct: the same reduce-scatter with perfect overlap and "
     "no contention. The gap between a fused mode and ideal-nmc is what contention costs. It is "
     "not "
     "a strict bound: a fused run can save work that the separate pieces each do."},
    {"t3",
     "T3's fused GEMM and reduce-scatter (Pati et al., ASPLOS'24). The GEMM runs a staggered "
     "schedule: on GPU g, stage s computes chunk (g + s - 1) mod N. Its output tiles go out as "
     "NMC UPDATEs into the next GPU's memory around the ring. The tracker at each memory "
     "controller counts the updates per tile and fires a pre-programmed DMA when a tile is "
     "complete. The controllers arbitrate FR-FCFS, and the all-gather runs afterwards. Where the "
     "collective planner finds several rings (both directions of a ring, a cube mesh, a torus), "
     "each carries a share of every chunk; on a full mesh (MI300X) every tile goes straight to "
     "its chunk's owner, as in t3-direct (the system's t3.rs_direction picks; the paper's "
     "machine keeps one ring). The GEMM takes the library's tile for its shape, without split-K. "
     "Simulated as one run, with every contention.",
     "Neither bound: a realistic point. Expect sequential >= t3, and t3 close to ideal-nmc when "
     "contention is low."},
    {"t3-mca",
     "t3 with memory-controller arbitration (MCA) during the fused GEMM-RS. Compute requests go "
     "first. Communication is admitted only while the queued bytes are below a threshold set from "
     "the first stage's memory intensity, and a starvation limit bounds its wait.",
     "A realistic point. It beats t3 where GEMM traffic suffers from communication in the memory "
     "queues; ideal-nmc is its reference."},
    {"cu-split",
     "The GEMM and an all-reduce CU kernel run at the same time: the all-reduce on --ar-cus CUs, "
     "the GEMM on the rest. The overlap is bought with compute. Simulated as one run.",
     "A realistic point; ideal is its lower bound, and sequential should be its upper bound unless "
     "the GEMM loses more to the missing CUs than the overlap saves."},
    {"decomposed",
     "The GEMM is split into --chunks row chunks, and each chunk's CU reduce-scatter overlaps the "
     "next chunk's GEMM, as in fine-grained decomposition schemes. Smaller GEMMs lose efficiency, "
     "and the pieces contend. Simulated as one run.",
     "A realistic point; ideal is its lower bound."},
    {"t3-direct",
     "T3 on a switch or fully connected fabric: every GPU sends each UPDATE straight to the GPU "
     "that owns the chunk, instead of around a ring. The owner's tracker counts all N - 1 "
     "contributions. Simulated as one run.",
     "A realistic point; ideal-nmc is its reference, as for t3."},
    {"t3-nvls",
     "T3 with the switch doing the reduction (NVLink SHARP) instead of NMC. Each GPU computes its "
     "chunks in t3-direct's order and writes every tile to its own memory; the tracker sees the "
     "write and fires a DMA that sends the tile up into the NVSwitch as one copy of an in-switch "
     "reduction. The switch counts the N copies of each tile, reduces them at its ports' "
     "reduce_bandwidth and sends one reduced copy to the chunk owner, whose memory takes a plain "
     "write (no UPDATE) that its tracker counts. Needs a switch with reduce_bandwidth and the "
     "packet fabric; runs unfolded. Simulated as one run.",
     "Not faster than the GEMM alone (plus the all-gather), and no slower than sequential when "
     "the overlap pays; t3-direct is the NMC-update alternative on the same switch."},
}};

}  // namespace

std::span<const ModeNote> mode_notes() { return kNotes; }

const ModeNote* mode_note(std::string_view mode) {
  for (const auto& n : kNotes) {
    if (n.mode == mode) return &n;
  }
  return nullptr;
}

}  // namespace t3sim::system
