// cuBLAS helpers for the validation programs: a T3V_CHECK overload for cublasStatus_t and a
// row-major half-precision GEMM C[M x N] = A[M x K] . B[K x N] (FP16 or BF16 in and out, FP32
// accumulate) via cublasGemmEx with the default heuristic, the call frameworks such as PyTorch make
// for these shapes. Layout: row-major C = A.B is issued as column-major C^T = B^T . A^T, so neither
// operand is transposed.
#pragma once

#include <cublas_v2.h>

#include <string>

#include "bench_common.cuh"

namespace t3v {

inline void check_status(cublasStatus_t status, const char* expr, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, expr,
               cublasGetStatusString(status), cublasGetStatusName(status));
  std::exit(1);
}

enum class DType { kFp16, kBf16 };

inline const char* dtype_name(DType t) { return t == DType::kFp16 ? "fp16" : "bf16"; }
inline cudaDataType_t cuda_type(DType t) { return t == DType::kFp16 ? CUDA_R_16F : CUDA_R_16BF; }

// Fills n half-precision elements of type `t` with non-zero random values.
inline void fill_random(DType t, void* data, size_t n, uint64_t seed,
                        cudaStream_t stream = nullptr) {
  if (t == DType::kFp16) {
    fill_random(static_cast<__half*>(data), n, seed, stream);
  } else {
    fill_random(static_cast<__nv_bfloat16*>(data), n, seed, stream);
  }
}

// A cuBLAS handle bound to `stream`, with a 32 MiB workspace (NVIDIA's recommendation for Hopper).
class Blas {
 public:
  explicit Blas(cudaStream_t stream) {
    T3V_CHECK(cublasCreate(&handle_));
    T3V_CHECK(cublasSetStream(handle_, stream));
    T3V_CHECK(cudaMalloc(&workspace_, kWorkspaceBytes));
    T3V_CHECK(cublasSetWorkspace(handle_, workspace_, kWorkspaceBytes));
  }
  ~Blas() {
    T3V_CHECK(cublasDestroy(handle_));
    T3V_CHECK(cudaFree(workspace_));
  }
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;

  // Row-major C[m x n] = A[m x k] . B[k x n]; all three in `t`, FP32 compute.
  void gemm(DType t, int m, int n, int k, const void* a, const void* b, void* c) {
    const float alpha = 1.0f, beta = 0.0f;
    const cudaDataType_t ct = cuda_type(t);
    T3V_CHECK(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, ct, n, a, ct, k,
                           &beta, c, ct, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }

  std::string version() const {
    int v = 0;
    T3V_CHECK(cublasGetVersion(handle_, &v));
    return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." +
           std::to_string(v % 100);
  }

 private:
  static constexpr size_t kWorkspaceBytes = 32u << 20;
  cublasHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
};

}  // namespace t3v
