// The runners and composers the mode table (mode.cpp) points at, one per way of executing a
// sublayer. Each runner builds its scenario(s) from ModeRun and returns the mode's result; the
// caller (run_sublayer) handles tracing, wall time and the folded/full fallback.
// Contract: a runner throws common::FoldError only when ModeRun::fold is set and the run turns out
// not to be rotation-symmetric; the caller then runs it again unfolded.
#pragma once

#include "models/system/mode.h"
#include "models/system/sublayer.h"

namespace t3sim::system {

// GEMM on all CUs -> ring RS (CU kernel) -> ring AG (sequential.cpp).
SublayerResult run_sequential(const ModeRun& run);
// GEMM and the all-reduce kernel concurrently, the AR on spec.ar_cus CUs (cu_split.cpp).
SublayerResult run_cu_split(const ModeRun& run);
// Isolated GEMM, RS (the row's rs_piece) and AG pieces combined by the row's composer.
SublayerResult run_composed(const ModeRun& run);
// Fused GEMM-RS: tracker + triggered DMA + NMC, ring or direct per the row (fused_run.cpp).
SublayerResult run_fused(const ModeRun& run);
// GEMM in k chunks, each chunk's RS overlapped with the next chunk's GEMM (decomposed.cpp).
SublayerResult run_decomposed(const ModeRun& run);

// The ideal-overlap compositions (t3-paper.md §4.4 [inferred]) in composer form.
SublayerResult compose_ideal_cu(const SublayerResult& gemm, const SublayerResult& rs,
                                const SublayerResult& ag);
SublayerResult compose_ideal_nmc(const SublayerResult& gemm, const SublayerResult& rs,
                                 const SublayerResult& ag);

}  // namespace t3sim::system
