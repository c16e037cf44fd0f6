// cuBLAS helpers for the validation programs: a T3V_CHECK overload for cublasStatus_t and the one
// GEMM setup, launch and timing that gemm_bench and contention_bench share, so that both time the
// same GEMM the same way. The GEMM: row-major C[M x N] = A[M x K] . B[K x N] (FP16 or BF16 in and
// out, FP32 accumulate) via cublasGemmEx with the default heuristic and a 32 MiB workspace, the
// call frameworks such as PyTorch make for these shapes. Layout: row-major C = A.B is issued as
// column-major C^T = B^T . A^T, so neither operand is transposed; operands are packed (leading
// dimension = row length). Timing (GemmTimer): per point an idle wait (settle), warm-up runs, then
// single launches, each bracketed by CUDA events on the GEMM stream (the host's cublasGemmEx call
// falls inside, as in eager PyTorch), followed by an untimed SM-clock probe and a host sync; the
// medians of time and clock are reported.
#pragma once

#include <cublas_v2.h>

#include <string>
#include <vector>

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

// Defaults of the GEMM timing both programs use.
constexpr int kGemmWarmup = 5;    // untimed runs before a point's timed runs
constexpr int kGemmIdleMs = 100;  // idle before each point (settle)

// --idle-ms MS (>= 0) and the options of timing_option; `o` needs an idle_ms field.
template <class Options>
bool gemm_timing_option(const std::string& a, int argc, char** argv, int& i, Options& o) {
  if (a != "--idle-ms") return timing_option(a, argc, argv, i, o);
  o.idle_ms = parse_int(argv[0], option_value(argc, argv, i), 0);
  return true;
}

// --m / --n / --k (>= 1) and --dtype fp16|bf16 of one GEMM shape; `o` needs m, n, k and dtype
// fields. Sets the field and returns true, or returns false for any other option.
template <class Options>
bool gemm_shape_option(const std::string& a, int argc, char** argv, int& i, Options& o) {
  if (a == "--m" || a == "--n" || a == "--k") {
    const int v = parse_int(argv[0], option_value(argc, argv, i), 1);
    (a == "--m" ? o.m : a == "--n" ? o.n : o.k) = v;
  } else if (a == "--dtype") {
    const std::string d = option_value(argc, argv, i);
    if (d != "fp16" && d != "bf16") usage_error(argv[0], "bad --dtype '" + d + "'");
    o.dtype = d == "fp16" ? DType::kFp16 : DType::kBf16;
  } else {
    return false;
  }
  return true;
}

// A comma list of integers >= min_value ("0,4,8"); `word`, when given, stands for `word_value`.
inline std::vector<int> parse_int_list(const char* prog, const std::string& list, int min_value,
                                       const char* word = nullptr, int word_value = 0) {
  std::vector<int> v;
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    const std::string item = list.substr(pos, comma - pos);
    v.push_back(word != nullptr && item == word ? word_value
                                                : parse_int(prog, item.c_str(), min_value));
    pos = comma + 1;
  }
  return v;
}

// The stream GEMMs run on: non-blocking, at the lowest priority, which is the default priority
// (contention_bench gives its reduction stream the highest).
inline cudaStream_t create_gemm_stream() {
  int least = 0, greatest = 0;
  T3V_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t stream;
  T3V_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, least));
  return stream;
}

// One row-major GEMM C[m x n] = A[m x k] . B[k x n], all three packed and of type `dtype`.
struct Gemm {
  DType dtype = DType::kFp16;
  int m = 0, n = 0, k = 0;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
};

// A cuBLAS handle bound to `stream`, with a 32 MiB workspace (NVIDIA's recommendation for Hopper).
class Blas {
 public:
  static constexpr size_t kWorkspaceBytes = 32u << 20;

  explicit Blas(cudaStream_t stream) : stream_(stream) {
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

  cudaStream_t stream() const { return stream_; }

  // Row-major C = A . B, FP32 compute: column-major C^T[n x m] = B^T[n x k] . A^T[k x m].
  void gemm(const Gemm& g) {
    const float alpha = 1.0f, beta = 0.0f;
    const cudaDataType_t ct = cuda_type(g.dtype);
    T3V_CHECK(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, g.n, g.m, g.k, &alpha, g.b, ct, g.n,
                           g.a, ct, g.k, &beta, g.c, ct, g.n, CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT));
  }

  std::string version() const {
    int v = 0;
    T3V_CHECK(cublasGetVersion(handle_, &v));
    return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." +
           std::to_string(v % 100);
  }

  // A '#' line saying how gemm() issues the GEMM.
  static std::string setup_line() {
    return "# gemm: row-major C[m x n] = A[m x k] . B[k x n], packed, issued as column-major "
           "C^T = B^T . A^T: cublasGemmEx(op N, op N, n, m, k, B ld=n, A ld=k, C ld=n), "
           "in/out dtype as in the rows, compute=CUBLAS_COMPUTE_32F, alpha=1, beta=0, "
           "algo=CUBLAS_GEMM_DEFAULT (cuBLAS heuristic), workspace=" +
           std::to_string(kWorkspaceBytes) +
           " bytes (32 MiB, cublasSetWorkspace), stream non-blocking at default priority";
  }

 private:
  cudaStream_t stream_ = nullptr;
  cublasHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
};

// The timed section every GEMM time here comes from: `start` recorded on the GEMM stream, the
// GEMM, `stop` recorded on the GEMM stream, with no other host work in between.
inline void timed_gemm(Blas& blas, const Gemm& g, cudaEvent_t start, cudaEvent_t stop) {
  T3V_CHECK(cudaEventRecord(start, blas.stream()));
  blas.gemm(g);
  T3V_CHECK(cudaEventRecord(stop, blas.stream()));
}

// A '#' line saying how GemmTimer times a point.
inline std::string gemm_timing_line(int warmup, int runs, int idle_ms) {
  return "# timing: per point " + std::to_string(idle_ms) +
         " ms idle (device synchronised, then no work, so the SM clock can recover from earlier "
         "load), " +
         std::to_string(warmup) + " untimed + " + std::to_string(runs) +
         " timed single launches; each launch bracketed by CUDA events on the GEMM stream (the "
         "host's cublasGemmEx call inside), then an untimed " +
         std::to_string(SmClock::kSpanUs) +
         " us SM-clock probe (clock64 cycles / globaltimer ns) and a host sync; medians of time "
         "and clock";
}

struct PointTime {
  double us = 0.0;      // median GEMM time
  double sm_mhz = 0.0;  // median SM clock of the probes after the timed runs
};

// Times single GEMM launches on the Blas stream (see the file comment).
class GemmTimer {
 public:
  GemmTimer(Blas& blas, SmClock& clock) : blas_(blas), clock_(clock) {
    T3V_CHECK(cudaEventCreate(&start_));
    T3V_CHECK(cudaEventCreate(&stop_));
  }
  ~GemmTimer() {
    T3V_CHECK(cudaEventDestroy(start_));
    T3V_CHECK(cudaEventDestroy(stop_));
  }
  GemmTimer(const GemmTimer&) = delete;
  GemmTimer& operator=(const GemmTimer&) = delete;

  // One run: timed_gemm, an SM-clock probe right after it (untimed; its slot goes to `slot`) and a
  // host sync, so the next run starts on an idle GPU. Returns the GEMM time in us.
  double run(const Gemm& g, int& slot) {
    timed_gemm(blas_, g, start_, stop_);
    slot = clock_.record(blas_.stream());
    T3V_CHECK(cudaStreamSynchronize(blas_.stream()));
    return elapsed_us(start_, stop_);
  }

  // A whole point: settle(idle_ms), `warmup` untimed and `runs` timed runs.
  PointTime point(const Gemm& g, int warmup, int runs, int idle_ms) {
    settle(idle_ms);
    clock_.clear();
    std::vector<double> us;
    std::vector<int> slots;
    for (int i = 0; i < warmup + runs; ++i) {
      int slot = 0;
      const double t = run(g, slot);
      if (i < warmup) continue;
      us.push_back(t);
      slots.push_back(slot);
    }
    const std::vector<double> mhz = clock_.mhz();
    std::vector<double> timed_mhz;
    for (int s : slots) timed_mhz.push_back(mhz[s]);
    return {median(us), median(timed_mhz)};
  }

 private:
  Blas& blas_;
  SmClock& clock_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace t3v
