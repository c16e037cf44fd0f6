#include "models/workload/kineto_schema.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/workload/trace.h"
#include "sim/errors.h"
#include "sim/strict_json.h"

namespace t3sim::workload {
namespace {

using Dims = std::vector<std::int64_t>;

constexpr std::int64_t kMaxDim = std::int64_t{1} << 40;

std::string strip_prefix(std::string_view text, std::string_view prefix) {
  return std::string(text.starts_with(prefix) ? text.substr(prefix.size()) : text);
}

std::vector<Dims> read_dims(const nlohmann::json& input_dims, const std::string& file,
                            const std::string& pointer) {
  if (!input_dims.is_array()) {
    throw ConfigError(file, pointer,
                      "\"Input Dims\" must be a list of shapes (profile with "
                      "record_shapes=True)");
  }
  std::vector<Dims> all;
  for (std::size_t i = 0; i < input_dims.size(); ++i) {
    const std::string at = fmt::format("{}/{}", pointer, i);
    if (!input_dims[i].is_array()) throw ConfigError(file, at, "each input shape must be a list");
    Dims dims;
    for (std::size_t j = 0; j < input_dims[i].size(); ++j) {
      dims.push_back(read_integer(input_dims[i][j], 0, kMaxDim, file, fmt::format("{}/{}", at, j),
                                  "a tensor dimension"));
    }
    all.push_back(std::move(dims));
  }
  return all;
}

// a x b for sizes in [0, kTooBig], saturated at kTooBig: one past the largest size a trace holds,
// so a product of many 2^40 dimensions cannot overflow.
constexpr std::int64_t kTooBig = kMaxSize + 1;
std::int64_t times(std::int64_t a, std::int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kTooBig / b ? kTooBig : std::min(a * b, kTooBig);
}

std::int64_t product(const Dims& dims, std::size_t begin, std::size_t end) {
  std::int64_t p = 1;
  for (std::size_t i = begin; i < end; ++i) p = times(p, dims[i]);
  return p;
}

// Broadcast batch size of the leading dims of two matmul operands (right-aligned).
std::int64_t broadcast_batch(const Dims& a, const Dims& b) {
  const std::size_t na = a.size() > 2 ? a.size() - 2 : 0;
  const std::size_t nb = b.size() > 2 ? b.size() - 2 : 0;
  std::int64_t batch = 1;
  for (std::size_t i = 0; i < std::max(na, nb); ++i) {
    const std::int64_t da = i < na ? a[na - 1 - i] : 1;
    const std::int64_t db = i < nb ? b[nb - 1 - i] : 1;
    batch = times(batch, std::max(da, db));
  }
  return batch;
}

// torch.matmul semantics; mm and bmm are its 2-D and 3-D cases. Returns {shape, k of B}.
std::pair<GemmShape, std::int64_t> matmul_shape(const Dims& a, const Dims& b) {
  GemmShape s;
  s.m = a.size() == 1 ? 1 : a[a.size() - 2];
  s.k = a.back();
  s.n = b.size() == 1 ? 1 : b.back();
  const std::int64_t kb = b.size() == 1 ? b[0] : b[b.size() - 2];
  if (b.size() <= 2) {
    s.m = times(s.m, a.size() > 2 ? product(a, 0, a.size() - 2) : 1);  // batch folded into M
  } else {
    s.batch = broadcast_batch(a, b);
  }
  return {s, kb};
}

struct OperandLayout {
  std::string_view op;
  std::size_t a;           // index of A (or the input of linear)
  std::size_t min_rank_a;  // required rank bounds of A and B
  std::size_t max_rank_a;
  std::size_t min_rank_b;
  std::size_t max_rank_b;
};

constexpr std::array<OperandLayout, 6> kLayouts = {{
    {"mm", 0, 2, 2, 2, 2},
    {"addmm", 1, 2, 2, 2, 2},
    {"bmm", 0, 3, 3, 3, 3},
    {"baddbmm", 1, 3, 3, 3, 3},
    {"matmul", 0, 1, 16, 1, 16},
    {"linear", 0, 1, 16, 2, 2},
}};

}  // namespace

bool is_gemm_op(std::string_view op_name) {
  const std::string op = strip_prefix(op_name, "aten::");
  return op_name.starts_with("aten::") &&
         std::any_of(kLayouts.begin(), kLayouts.end(),
                     [&](const OperandLayout& l) { return l.op == op; });
}

std::optional<KinetoGemm> gemm_from_input_dims(std::string_view op_name,
                                               const nlohmann::json& input_dims,
                                               const std::string& file,
                                               const std::string& pointer) {
  const std::string op = strip_prefix(op_name, "aten::");
  const auto layout = std::find_if(kLayouts.begin(), kLayouts.end(),
                                   [&](const OperandLayout& l) { return l.op == op; });
  if (layout == kLayouts.end()) {
    throw ConfigError(file, pointer, fmt::format("'{}' is not a GEMM op", op_name));
  }
  const std::vector<Dims> dims = read_dims(input_dims, file, pointer);
  const auto bad = [&](const std::string& why) {
    return ConfigError(file, pointer,
                       fmt::format("{} \"Input Dims\" {} {}; expected the operands of {} (profile "
                                   "with record_shapes=True)",
                                   op_name, input_dims.dump(), why, op_name));
  };
  if (dims.size() < layout->a + 2) throw bad("has too few inputs");
  const Dims& a = dims[layout->a];
  const Dims& b = dims[layout->a + 1];
  if (a.size() < layout->min_rank_a || a.size() > layout->max_rank_a ||
      b.size() < layout->min_rank_b || b.size() > layout->max_rank_b) {
    throw bad("have operands of the wrong rank");
  }
  GemmShape shape;
  std::int64_t k_of_b = 0;
  if (op == "linear") {  // input (..., in) x weight (out, in)^T
    shape = {product(a, 0, a.size() - 1), b[0], a.back(), 1};
    k_of_b = b[1];
  } else {
    std::tie(shape, k_of_b) = matmul_shape(a, b);
  }
  if (shape.k != k_of_b) throw bad(fmt::format("disagree on K ({} vs {})", shape.k, k_of_b));
  if (shape.m == 0 || shape.n == 0 || shape.k == 0 || shape.batch == 0) return std::nullopt;
  if (std::max({shape.m, shape.n, shape.k, shape.batch}) > kMaxSize) {
    throw bad(
        fmt::format("make a GEMM with M, N, K or batch above {} (2^50 - 1, the largest a "
                    "t3sim trace holds)",
                    kMaxSize));
  }
  if (shape.batch > kMaxSize / shape.m) {
    throw bad(
        fmt::format("make a GEMM of M x batch = {} x {} rows, above {} (2^50 - 1, the "
                    "largest a t3sim trace holds)",
                    shape.m, shape.batch, kMaxSize));
  }
  return KinetoGemm{shape, layout->a};
}

std::optional<Dtype> dtype_from_torch_name(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, Dtype>, 18> kNames = {{
      {"Half", Dtype::kFp16},
      {"BFloat16", Dtype::kBf16},
      {"float", Dtype::kFp32},
      {"Float", Dtype::kFp32},
      {"double", Dtype::kFp64},
      {"Double", Dtype::kFp64},
      {"long int", Dtype::kInt64},
      {"long", Dtype::kInt64},  // older PyTorch (the C++ type name, as in nccl:all_to_all)
      {"long long", Dtype::kInt64},
      {"Long", Dtype::kInt64},
      {"int", Dtype::kInt32},
      {"Int", Dtype::kInt32},
      {"signed char", Dtype::kInt8},
      {"Char", Dtype::kInt8},
      {"unsigned char", Dtype::kInt8},
      {"Byte", Dtype::kInt8},
      {"bool", Dtype::kInt8},
      {"Bool", Dtype::kInt8},
  }};
  const std::string bare = strip_prefix(name, "c10::");
  if (bare.starts_with("Float8_")) return Dtype::kFp8;
  for (const auto& [text, dtype] : kNames) {
    if (text == bare) return dtype;
  }
  return std::nullopt;
}

bool is_nccl_kernel(std::string_view kernel_name) {
  return kernel_name.starts_with("ncclDevKernel_") || kernel_name.starts_with("ncclKernel_");
}

std::optional<OpKind> collective_from_nccl_kernel(std::string_view kernel_name) {
  if (!is_nccl_kernel(kernel_name)) return std::nullopt;
  std::string_view rest = kernel_name.substr(kernel_name.find('_') + 1);
  rest = rest.substr(0, rest.find_first_of("_("));
  std::string word(rest);
  std::transform(word.begin(), word.end(), word.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (word == "allreduce") return OpKind::kAllReduce;
  if (word == "reducescatter") return OpKind::kReduceScatter;
  if (word == "allgather") return OpKind::kAllGather;
  return std::nullopt;
}

}  // namespace t3sim::workload
