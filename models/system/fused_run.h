// Mode runners that are more than a GEMM followed by collectives: T3's fused GEMM-RS (t3, t3-mca,
// t3-direct) and software decomposition. `fold`: simulate GPU 0 alone (scenario.h).
#pragma once

#include "models/system/sublayer.h"
#include "sim/trace.h"

namespace t3sim::system {

SublayerResult run_fused(const ConfigDoc& doc, const SublayerSpec& s, Mode mode,
                         const RunOptions& o, TraceWriter* tracer, bool fold);
SublayerResult run_decomposed(const ConfigDoc& doc, const SublayerSpec& s, const RunOptions& o,
                              TraceWriter* tracer, bool fold);

}  // namespace t3sim::system
