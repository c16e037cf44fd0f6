// The largest GEMM the GPU model can represent. Its kernel (models/gpu) counts output tiles,
// split-K work-groups and K phases per tile row/column in 32 bits, and buffer sizes in 64-bit
// bytes; a shape past those bounds would wrap and report a wrong time (or the never-finished
// sentinel), so it is rejected before anything is simulated. The bounds take the smallest
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
