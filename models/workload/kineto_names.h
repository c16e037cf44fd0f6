// Names in a PyTorch profiler (Kineto) trace and what they say: the communication kind of an NCCL
// or RCCL kernel ("ncclDevKernel_AllReduce_Sum_f16_RING_LL", "ncclKernel_SendRecv_...", and the
// generic "ncclDevKernel_Generic" that names none), of a record_param_comms "Collective name"
// ("allreduce", "_reduce_scatter_base", "all_gather_into_tensor", ...) or of a c10d / nccl host op
// ("c10d::allreduce_", "nccl:_all_gather_base"); whether a kernel runs FP32 inputs on TF32 tensor
// cores (cuBLAS/CUTLASS "tensorop_s1688", "_tf32"); and which kernels and ops are GEMMs or
// convolutions by name. Exact for the spellings listed; anything else is "unknown".
// Source: NVIDIA/nccl src/device (kernel names), PyTorch ProcessGroupNCCL (record_param_comms),
// observed in facebookresearch/HolisticTraceAnalysis tests/data traces.
#pragma once

#include <optional>
#include <string_view>

#include "models/workload/op.h"

namespace t3sim::workload {

enum class CommKind {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kAllToAll,
  kBroadcast,
  kSendRecv,
  kReduce,
  kBarrier,
  kGather  // gather and scatter: NCCL has no such collective (PyTorch runs send/recv)
};

std::string_view to_string(CommKind kind);  // "all-reduce", "all-to-all", ...
// The trace op kind t3sim models for a communication kind (a barrier: an all-reduce of one
// element); nullopt for send/recv (a send or recv op needs its direction and peer rank:
// kineto_comms.h) and gather/scatter.
std::optional<OpKind> modelled_kind(CommKind kind);

// From a kernel name; nullopt for non-NCCL kernels and for generic kernels that name no kind.
std::optional<CommKind> comm_kind_of_kernel(std::string_view kernel_name);
// From a record_param_comms "Collective name" or a "c10d::"/"nccl:" op name; nullopt otherwise
// ("wait", "coalesced", unknown names).
std::optional<CommKind> comm_kind_of_name(std::string_view name);

// cuBLAS/CUTLASS kernels that run FP32 GEMMs on TF32 tensor cores.
bool is_tf32_kernel(std::string_view kernel_name);
// Kernel names of GEMM libraries (cuBLAS, CUTLASS, Tensile/hipBLASLt, ...); not FBGEMM-GPU's
// embedding kernels, whose namespace merely contains "gemm".
bool is_gemm_kernel(std::string_view kernel_name);
// aten convolution ops ("aten::conv2d", "aten::cudnn_convolution", "aten::miopen_convolution").
bool is_conv_op(std::string_view op_name);

}  // namespace t3sim::workload
