// The largest GEMM the GPU model simulates. Its kernel (models/gpu/gemm_plan.h) keeps state per
// work-group, per operand slice and per WG slot and K phase, and bounds each count (that bounds
// its memory, and keeps its 32-bit ids exact); buffer sizes are 64-bit bytes. A shape past those
// bounds is rejected before anything is built, with the input named. The bounds take the smallest
// macro-tile and the largest split-K the GPU preset allows (tile_select may pick either).
// Contract: gemm_beyond_model() is "" exactly when every count fits; the check functions throw
// ConfigError naming the input, the shape, the bound and the fix.
#pragma once

#include <cstdint>
#include <string>

#include "models/gpu/gemm_plan.h"
#include "models/gpu/gpu_spec.h"
#include "sim/config.h"

namespace t3sim::system {

// "" when the model represents the GEMM, else which count overflows (with its value and bound).
std::string gemm_beyond_model(const gpu::GpuSpec& spec, const gpu::GemmShape& shape,
                              uint32_t elem_bytes);

// Throws ConfigError(file, pointer, ...) when gemm_beyond_model() is not "".
void check_gemm_fits(const gpu::GpuSpec& spec, const gpu::GemmShape& shape, uint32_t elem_bytes,
                     const std::string& file, const std::string& pointer);

// The GPU spec of a system document (its "gpu" bound as System binds it).
gpu::GpuSpec system_gpu_spec(const ConfigDoc& doc);

}  // namespace t3sim::system
