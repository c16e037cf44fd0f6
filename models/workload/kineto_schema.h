// What the fields of a PyTorch profiler (Kineto) Chrome trace mean for t3sim: GEMM shapes from the
// "Input Dims" of matmul-family aten ops, element types from torch type names, collective kinds
// from NCCL kernel and c10d collective names. Exact for the listed ops; anything else is left to
// the importer (kineto_import.h) to treat as a fixed-duration op. Source: pytorch/kineto
// libkineto/src/output_json.cpp and PyTorch's record_shapes output ("Input Dims", "Input type").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "models/workload/dtype.h"
#include "models/workload/op.h"
#include "models/workload/sublayer.h"

namespace t3sim::workload {

// aten::mm, aten::addmm, aten::matmul, aten::linear, aten::bmm, aten::baddbmm.
bool is_gemm_op(std::string_view op_name);

struct KinetoGemm {
  GemmShape shape;
  std::size_t a_input = 0;  // index of the A operand in "Input Dims" / "Input type"
};
// The GEMM an aten op computes, from its "Input Dims" (at `pointer`). nullopt when a dimension is
// zero (an empty product); a ConfigError when the dims do not describe that op's product.
std::optional<KinetoGemm> gemm_from_input_dims(std::string_view op_name,
                                               const nlohmann::json& input_dims,
                                               const std::string& file, const std::string& pointer);

// "c10::Half", "Half", "float", "Float", "c10::BFloat16", "long int", "c10::Float8_e4m3fn", ...
std::optional<Dtype> dtype_from_torch_name(std::string_view name);

// The collective of an NCCL kernel name ("ncclDevKernel_AllReduce_Sum_f16_RING_LL(...)"): nullopt
// for kernels that are not all-reduce, reduce-scatter or all-gather (send/recv, broadcast, ...).
std::optional<OpKind> collective_from_nccl_kernel(std::string_view kernel_name);
bool is_nccl_kernel(std::string_view kernel_name);

}  // namespace t3sim::workload
