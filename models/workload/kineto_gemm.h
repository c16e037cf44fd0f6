// The GEMM op of a kernel launched by a matmul-family aten op (aten::mm, addmm, matmul, linear,
// bmm, baddbmm) in a PyTorch profiler (Kineto) trace: its shape from the op's "Input Dims"
// (kineto_schema.h), its element type from the A operand's "Input type", FP32 on a TF32 kernel
// ("tensorop_s1688", "_tf32") becoming tf32. Exact for the listed ops; the kernel's measured time
// is kept as measured_us only. Source: PyTorch record_shapes output; cuBLAS kernel names.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "models/workload/op.h"

namespace t3sim::workload {

// The gemm op of the kernel `kernel_name` (of `kernel_us`) launched by the cpu_op event `cpu_op`
// at `cpu_pointer` in `file`. A ConfigError naming the member when the op has no "Input Dims",
// multiplies an empty matrix, or its operand type is not one t3sim models.
Op kineto_gemm_op(const nlohmann::json& cpu_op, std::string_view kernel_name, double kernel_us,
                  const std::string& file, const std::string& cpu_pointer);

}  // namespace t3sim::workload
