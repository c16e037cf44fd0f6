#include "models/workload/kineto_gemm.h"

#include <optional>

#include <fmt/format.h>

#include "models/workload/kineto_launch.h"
#include "models/workload/kineto_names.h"
#include "models/workload/kineto_schema.h"
#include "sim/did_you_mean.h"
#include "sim/errors.h"

namespace t3sim::workload {

Op kineto_gemm_op(const nlohmann::json& cpu_op, std::string_view kernel_name, double kernel_us,
                  const std::string& file, const std::string& cpu_pointer) {
  const std::string name = kineto_string(cpu_op, "name");
  const nlohmann::json* args = kineto_args(cpu_op);
  const std::string hint = " (profile with record_shapes=True)";
  if (args == nullptr || !args->contains("Input Dims")) {
    throw ConfigError(file, cpu_pointer + "/args",
                      fmt::format("{} has no \"Input Dims\"{}", name, hint));
  }
  const auto gemm =
      gemm_from_input_dims(name, args->at("Input Dims"), file, cpu_pointer + "/args/Input Dims");
  if (!gemm) {
    throw ConfigError(file, cpu_pointer + "/args/Input Dims",
                      fmt::format("{} multiplies an empty matrix", name));
  }
  const nlohmann::json types = args->value("Input type", nlohmann::json::array());
  const std::string type =
      types.is_array() && gemm->a_input < types.size() && types[gemm->a_input].is_string()
          ? types[gemm->a_input].get<std::string>()
          : std::string();
  std::optional<Dtype> dtype = dtype_from_torch_name(type);
  if (!dtype) {
    throw ConfigError(file, fmt::format("{}/args/Input type/{}", cpu_pointer, gemm->a_input),
                      fmt::format("{} operand type '{}' is not one t3sim models ({}){}", name, type,
                                  join(dtype_names(), ", "), hint));
  }
  if (*dtype == Dtype::kFp32 && is_tf32_kernel(kernel_name)) dtype = Dtype::kTf32;
  Op op;
  op.kind = OpKind::kGemm;
  op.shape = gemm->shape;
  op.dtype = dtype;
  op.measured_us = kernel_us;
  op.name = name + ": " + std::string(kernel_name);
  return op;
}

}  // namespace t3sim::workload
