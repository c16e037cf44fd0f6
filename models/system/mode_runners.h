// The runners that several rows of the mode table share; a runner that serves one mode lives in
// that mode's file under modes/ (sequential, cu-split, decomposed). Each runner builds its
// scenario(s) from ModeRun and returns the mode's result; the caller (run_sublayer) sets the
// result's mode and handles tracing, wall time and the folded/full fallback.
// Contract: a runner throws common::FoldError only when ModeRun::fold is set and the run turns out
// not to be rotation-symmetric; the caller then runs it again unfolded.
#pragma once

#include "models/system/mode.h"
#include "models/system/sublayer.h"

namespace t3sim::system {

// Isolated GEMM, RS (the row's rs_piece) and AG pieces combined by the row's composer
// (sublayer.cpp; composers: compose_sequential, compose_ideal in sublayer.h).
SublayerResult run_composed(const ModeRun& run);
// Fused GEMM-RS: tracker + triggered DMA + NMC, ring or direct per the row (fused_run.cpp).
SublayerResult run_fused(const ModeRun& run);

}  // namespace t3sim::system
