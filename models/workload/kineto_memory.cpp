#include "models/workload/kineto_memory.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "models/workload/dtype.h"
#include "models/workload/kineto_schema.h"
#include "sim/errors.h"

namespace t3sim::workload {
namespace {

constexpr std::int64_t kMaxMemoryBytes = (std::int64_t{1} << 50) - 1;  // the trace format's bound

// Each family's ops: aten names without "aten::" and a trailing '_', space-separated.
constexpr std::array<MemoryFamily, 7> kFamilies = {{
    {"element-wise", ByteRule::kElementwise,
     "add sub rsub mul div neg abs exp log sqrt rsqrt reciprocal pow sign floor ceil round fmod "
     "remainder erf sin cos square relu gelu silu sigmoid tanh mish hardswish hardtanh leaky_relu "
     "elu threshold threshold_backward gelu_backward silu_backward sigmoid_backward tanh_backward "
     "hardtanh_backward leaky_relu_backward clamp clamp_min clamp_max where masked_fill addcmul "
     "addcdiv lerp maximum minimum native_dropout native_dropout_backward dropout bitwise_and "
     "bitwise_or bitwise_not logical_not"},
    {"comparison", ByteRule::kComparison, "eq ne lt le gt ge isnan isinf"},
    {"copy / cast", ByteRule::kCopy,
     "copy _copy_from _copy_from_and_resize _to_copy clone contiguous"},
    {"fill", ByteRule::kFill, "fill zero normal uniform random bernoulli"},
    {"normalization / softmax", ByteRule::kRowwise,
     "layer_norm native_layer_norm native_layer_norm_backward batch_norm native_batch_norm "
     "native_batch_norm_backward cudnn_batch_norm cudnn_batch_norm_backward _batch_norm_impl_index "
     "group_norm native_group_norm native_group_norm_backward rms_norm _fused_rms_norm softmax "
     "_softmax log_softmax _log_softmax _softmax_backward_data _log_softmax_backward_data"},
    {"reduction", ByteRule::kReduction,
     "sum mean amax amin norm linalg_vector_norm var std var_mean std_mean argmax argmin prod "
     "logsumexp any all"},
    {"embedding", ByteRule::kEmbedding,
     "embedding embedding_bag _embedding_bag _embedding_bag_forward_only"},
}};

bool lists(std::string_view ops, std::string_view name) {
  while (!ops.empty()) {
    const std::size_t end = std::min(ops.find(' '), ops.size());
    if (ops.substr(0, end) == name) return true;
    ops.remove_prefix(std::min(end + 1, ops.size()));
  }
  return false;
}

// A tensor's element type: a dtype name ("float", "long int", "c10::Half"). Capitalised names
// are the tags of non-tensor arguments ("Scalar", "Double", "Bool", "ScalarList", "TensorList").
std::optional<Dtype> tensor_dtype(std::string_view name) {
  if (name.empty() ||
      (!std::islower(static_cast<unsigned char>(name[0])) && !name.starts_with("c10::"))) {
    return std::nullopt;
  }
  return dtype_from_torch_name(name);
}

struct Tensor {
  std::vector<std::int64_t> dims;
  std::int64_t element_bytes = 0;
  std::int64_t elements = 1;
  std::int64_t bytes() const { return elements * element_bytes; }
};

class Reader {
 public:
  Reader(const std::string& file, const std::string& pointer) : file_(file), pointer_(pointer) {}

  // The tensor inputs of the op, in order (entries whose type is a torch element type).
  std::vector<Tensor> tensors(const nlohmann::json& args) const {
    const auto dims = args.find("Input Dims");
    if (dims == args.end() || !dims->is_array()) fail("/Input Dims", "is not an array");
    const auto types = args.find("Input type");
    if (types == args.end() || !types->is_array()) fail("/Input type", "is not an array");
    std::vector<Tensor> out;
    for (std::size_t i = 0; i < dims->size() && i < types->size(); ++i) {
      const nlohmann::json& type = (*types)[i];
      const std::optional<Dtype> dtype =
          type.is_string() ? tensor_dtype(type.get<std::string>()) : std::nullopt;
      if (!dtype) continue;
      Tensor t;
      t.element_bytes = bytes_per_element(*dtype);
      const nlohmann::json& d = (*dims)[i];
      if (!d.is_array()) fail(fmt::format("/Input Dims/{}", i), "is not an array of sizes");
      for (std::size_t j = 0; j < d.size(); ++j) {
        if (!d[j].is_number_integer() || d[j].get<std::int64_t>() < 0 ||
            d[j].get<std::int64_t>() > kMaxMemoryBytes) {
          fail(fmt::format("/Input Dims/{}/{}", i, j), "is not a size in [0, 2^50)");
        }
        t.dims.push_back(d[j].get<std::int64_t>());
        t.elements = checked(t.elements, t.dims.back());
      }
      checked(t.elements, t.element_bytes);
      out.push_back(std::move(t));
    }
    if (out.empty()) fail("/Input type", "names no tensor input (only scalars, lists or None)");
    return out;
  }

  std::int64_t checked(std::int64_t a, std::int64_t b) const {
    if (a != 0 && b > kMaxMemoryBytes / a)
      fail("/Input Dims", "describes tensors of 2^50 bytes or more");
    return a * b;
  }

  [[noreturn]] void fail(const std::string& member, const std::string& what) const {
    throw ConfigError(file_, pointer_ + member,
                      fmt::format("{} {}; a memory op needs the op's tensor sizes and types "
                                  "(profile with record_shapes=True)",
                                  member.substr(1), what));
  }

 private:
  const std::string& file_;
  const std::string& pointer_;
};

// The broadcast of the inputs' shapes (aligned right; each dimension the largest, 1 broadcasts).
std::int64_t broadcast_elements(const std::vector<Tensor>& in, const Reader& r) {
  std::size_t rank = 0;
  for (const Tensor& t : in) rank = std::max(rank, t.dims.size());
  std::int64_t elements = 1;
  for (std::size_t k = 0; k < rank; ++k) {
    std::int64_t size = 1;
    for (const Tensor& t : in) {
      if (k < t.dims.size()) size = std::max(size, t.dims[t.dims.size() - 1 - k]);
    }
    if (std::any_of(in.begin(), in.end(), [&](const Tensor& t) {
          return k < t.dims.size() && t.dims[t.dims.size() - 1 - k] == 0;
        })) {
      size = 0;
    }
    elements = r.checked(elements, size);
  }
  return elements;
}

std::int64_t read_all(const std::vector<Tensor>& in) {
  std::int64_t sum = 0;
  for (const Tensor& t : in) sum += t.bytes();
  return sum;
}

std::int64_t embedding_bytes(const std::vector<Tensor>& in, const Reader& r) {
  if (in.size() < 2) r.fail("/Input Dims", "has no indices after the weight");
  const Tensor& weight = in[0];
  const std::int64_t rows = weight.dims.empty() ? 1 : std::max<std::int64_t>(weight.dims[0], 1);
  const std::int64_t row_bytes = weight.bytes() / rows;
  const std::int64_t out_rows = in.size() >= 3 ? in[2].elements : in[1].elements;  // bags
  std::int64_t bytes = in[1].bytes() + (in.size() >= 3 ? in[2].bytes() : 0);
  bytes += r.checked(in[1].elements, row_bytes) + r.checked(out_rows, row_bytes);
  return bytes;
}

std::int64_t rule_bytes(ByteRule rule, const std::vector<Tensor>& in, const Reader& r) {
  switch (rule) {
    case ByteRule::kElementwise:
    case ByteRule::kComparison: {
      std::int64_t widest = 1;
      for (const Tensor& t : in) widest = std::max(widest, t.element_bytes);
      const std::int64_t out = rule == ByteRule::kComparison ? 1 : widest;
      return read_all(in) + r.checked(broadcast_elements(in, r), out);
    }
    case ByteRule::kCopy:
      return in.size() >= 2 ? in[0].bytes() + in[1].bytes() : 2 * in[0].bytes();
    case ByteRule::kFill:
      return in[0].bytes();
    case ByteRule::kRowwise:
      return read_all(in) + in[0].bytes();
    case ByteRule::kReduction:
      return read_all(in);
    case ByteRule::kEmbedding:
      return embedding_bytes(in, r);
  }
  return 0;
}

}  // namespace

const MemoryFamily* memory_family(std::string_view op_name) {
  if (!op_name.starts_with("aten::")) return nullptr;
  op_name.remove_prefix(6);
  if (op_name.size() > 1 && op_name.back() == '_' && op_name[op_name.size() - 2] != '_') {
    op_name.remove_suffix(1);  // in place: "add_" (not "__and__")
  }
  for (const MemoryFamily& f : kFamilies) {
    if (lists(f.ops, op_name)) return &f;
  }
  return nullptr;
}

std::int64_t memory_op_bytes(const MemoryFamily& family, const nlohmann::json& args,
                             const std::string& file, const std::string& pointer) {
  const Reader r(file, pointer);
  const std::vector<Tensor> in = r.tensors(args);
  const std::int64_t bytes = rule_bytes(family.rule, in, r);
  if (bytes > kMaxMemoryBytes) r.fail("/Input Dims", "describes tensors of 2^50 bytes or more");
  return std::max<std::int64_t>(bytes, 1);
}

}  // namespace t3sim::workload
