// Memory-bound aten ops of a PyTorch profiler (Kineto) trace as t3sim memory ops (bytes read +
// written through HBM): one table of op families, each with its byte rule over the launching op's
// "Input Dims" and "Input type" (record_shapes). Tensor inputs are those typed with a dtype
// ("float", "c10::Half"); "Scalar", "Double", "Bool", "ScalarList", "" are not read. Fidelity:
// logical tensor sizes (no cache reuse, no strides); reduced outputs and the small outputs of
// normalizations (mean, rstd, weight grads) are not counted; ops outside the table stay fixed.
// Source: PyTorch "Broadcasting semantics" and the aten signatures in native_functions.yaml.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace t3sim::workload {

enum class ByteRule {
  kElementwise,  // reads every tensor input, writes their broadcast shape in the widest type
  kComparison,   // as element-wise, but writes bool (1 byte per element)
  kCopy,         // reads the source, writes the destination (two inputs: dst, src; one: a clone)
  kFill,         // writes the first input (fill_, zero_, random fills)
  kRowwise,      // reads every tensor input, writes one tensor the size and type of the first
  kReduction,    // reads every tensor input (the reduced output is not counted)
  kEmbedding,    // reads the indices and the rows they select, writes the gathered rows
};

struct MemoryFamily {
  std::string_view name;  // "element-wise", "normalization / softmax", ...
  ByteRule rule;
  std::string_view ops;  // aten op names without "aten::" and trailing '_', space-separated
};

// The family of an aten op ("aten::add_", "aten::native_layer_norm"), or nullptr. In-place
// variants ("add_") belong to their op's family (self is an input: read, then written).
const MemoryFamily* memory_family(std::string_view op_name);

// The bytes the op moves, by its family's rule, from the op's args ("Input Dims", "Input type"
// at `pointer`). At least 1 (an empty tensor: the format's smallest size). A ConfigError naming
// the member when the dims are not arrays of non-negative integers, or no input is a tensor.
std::int64_t memory_op_bytes(const MemoryFamily& family, const nlohmann::json& args,
                             const std::string& file, const std::string& pointer);

}  // namespace t3sim::workload
