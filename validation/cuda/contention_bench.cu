// contention_bench: a real-GPU analogue of T3 Fig. 6 (t3-paper.md; measurements.md §4): a cuBLAS
// GEMM (default 8192^3 FP16, FP32 accumulate) on one stream, concurrent with a memory-bound
// ring-reduction-like kernel (c = a + b, large FP16 buffers, 16-byte accesses) on a second,
// higher-priority stream, persistent with exactly k blocks of max opt-in shared memory, so each
// block owns one SM (checked with %smid). Fidelity: each kernel's time comes from events on its own
// stream; its start can precede the host's cuBLAS launch by a few us. Medians of >= 20 runs.
// speedup = (gemm_alone + red_alone) / together; ideal = (gemm_alone + red_alone) / max of the two.
#include <set>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "cublas_util.cuh"

namespace {

constexpr const char* kHelp =
    "usage: contention_bench [--m M] [--n N] [--k K] [--dtype fp16|bf16] [--red-bytes SIZE]\n"
    "                        [--blocks LIST] [--threads T] [--shared-sm] [--same-priority]\n"
    "                        [--runs N] [--warmup N] [--device D] [--out FILE.csv] [--help]\n"
    "GEMM alone, reduction kernel alone (k blocks), and both concurrently on two streams.\n"
    "  --m/--n/--k D     GEMM shape, row-major C[MxN] = A[MxK].B[KxN] (default 8192 each)\n"
    "  --dtype T         fp16 or bf16 (default fp16)\n"
    "  --red-bytes SIZE  size of each reduction buffer a, b, c (default 256M)\n"
    "  --blocks LIST     comma list of k = reduction blocks (default 0,4,8,16,32; 0 = none)\n"
    "  --threads T       threads per reduction block (default 512, as NCCL's Simple protocol)\n"
    "  --shared-sm       do not reserve a whole SM per reduction block (no max shared memory)\n"
    "  --same-priority   reduction stream at default priority (default: highest priority)\n"
    "  --runs N          timed runs per point, median reported (default 20, minimum 20)\n"
    "  --warmup N        untimed runs first (default 3)\n"
    "  --device D        CUDA device (default 0)\n"
    "  --out FILE        output CSV (default stdout)\n";

constexpr const char* kColumns =
    "red_blocks,red_sms,m,n,k,dtype,red_bytes,gemm_alone_us,red_alone_us,gemm_together_us,"
    "red_together_us,together_us,gemm_slowdown,red_slowdown,speedup,ideal_speedup";

struct Options {
  int m = 8192, n = 8192, k = 8192, threads = 512, runs = 20, warmup = 3, device = 0;
  t3v::DType dtype = t3v::DType::kFp16;
  uint64_t red_bytes = 256ull << 20;
  std::vector<int> blocks{0, 4, 8, 16, 32};
  bool exclusive = true, high_priority = true;
  std::string out;
};

std::vector<int> parse_list(const char* prog, const std::string& list) {
  std::vector<int> v;
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    v.push_back(t3v::parse_int(prog, list.substr(pos, comma - pos).c_str(), 0));
    pos = comma + 1;
  }
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  const char* p = argv[0];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      std::exit(0);
    } else if (a == "--m" || a == "--n" || a == "--k") {
      const int v = t3v::parse_int(p, t3v::option_value(argc, argv, i), 1);
      (a == "--m" ? o.m : a == "--n" ? o.n : o.k) = v;
    } else if (a == "--dtype") {
      const std::string d = t3v::option_value(argc, argv, i);
      if (d != "fp16" && d != "bf16") t3v::usage_error(p, "bad --dtype '" + d + "'");
      o.dtype = d == "fp16" ? t3v::DType::kFp16 : t3v::DType::kBf16;
    } else if (a == "--red-bytes") {
      o.red_bytes = t3v::parse_size(p, t3v::option_value(argc, argv, i));
    } else if (a == "--blocks") {
      o.blocks = parse_list(p, t3v::option_value(argc, argv, i));
    } else if (a == "--threads") {
      o.threads = t3v::parse_int(p, t3v::option_value(argc, argv, i), 32);
    } else if (a == "--shared-sm") {
      o.exclusive = false;
    } else if (a == "--same-priority") {
      o.high_priority = false;
    } else if (!t3v::timing_option(a, argc, argv, i, o)) {
      t3v::usage_error(p, "unknown option '" + a + "'");
    }
  }
  if (o.red_bytes < 16 || o.red_bytes % 16)
    t3v::usage_error(p, "--red-bytes must be a multiple of 16");
  if (o.threads > 1024 || o.threads % 32) t3v::usage_error(p, "--threads must be 32..1024, x32");
  return o;
}

__device__ inline uint32_t add_half2(uint32_t x, uint32_t y) {
  const __half2 r =
      __hadd2(*reinterpret_cast<const __half2*>(&x), *reinterpret_cast<const __half2*>(&y));
  return *reinterpret_cast<const uint32_t*>(&r);
}

// c = a + b over n 16-byte vectors of 8 FP16 values; block b writes its SM id to smids[b].
__global__ void reduce_kernel(const uint4* __restrict__ a, const uint4* __restrict__ b,
                              uint4* __restrict__ c, size_t n, unsigned* smids) {
  if (threadIdx.x == 0) {
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    smids[blockIdx.x] = smid;
  }
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const uint4 x = a[i], y = b[i];
    c[i] = make_uint4(add_half2(x.x, y.x), add_half2(x.y, y.y), add_half2(x.z, y.z),
                      add_half2(x.w, y.w));
  }
}

struct Bench {
  const Options& o;
  t3v::Blas& blas;
  cudaStream_t sg, sr;  // GEMM stream, reduction stream
  void *a, *b, *c;      // GEMM operands
  uint4 *ra, *rb, *rc;  // reduction buffers
  unsigned* smids;
  size_t smem;

  void gemm() { blas.gemm(o.dtype, o.m, o.n, o.k, a, b, c); }
  void reduce(int blocks) {
    if (blocks == 0) return;
    reduce_kernel<<<blocks, o.threads, smem, sr>>>(ra, rb, rc, o.red_bytes / 16, smids);
    T3V_CHECK_LAUNCH();
  }
  // Distinct SMs the last reduction launch ran on.
  int sms_used(int blocks) {
    std::vector<unsigned> ids(blocks);
    if (blocks == 0) return 0;
    T3V_CHECK(cudaMemcpy(ids.data(), smids, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
    return static_cast<int>(std::set<unsigned>(ids.begin(), ids.end()).size());
  }
  // Median GEMM, reduction and total times (us) with both kernels in flight.
  void together(int blocks, double& g_us, double& r_us, double& all_us) {
    cudaEvent_t g0, g1, r0, r1, all;
    for (cudaEvent_t* e : {&g0, &g1, &r0, &r1, &all}) T3V_CHECK(cudaEventCreate(e));
    std::vector<double> g, r, t;
    for (int i = 0; i < o.warmup + o.runs; ++i) {
      T3V_CHECK(cudaEventRecord(g0, sg));
      T3V_CHECK(cudaStreamWaitEvent(sr, g0, 0));
      T3V_CHECK(cudaEventRecord(r0, sr));
      reduce(blocks);  // first, so its blocks take their SMs before the GEMM's waves fill the GPU
      gemm();
      T3V_CHECK(cudaEventRecord(g1, sg));
      T3V_CHECK(cudaEventRecord(r1, sr));
      T3V_CHECK(cudaStreamWaitEvent(sg, r1, 0));
      T3V_CHECK(cudaEventRecord(all, sg));
      T3V_CHECK(cudaEventSynchronize(all));
      float gm = 0, rm = 0, am = 0;
      T3V_CHECK(cudaEventElapsedTime(&gm, g0, g1));
      T3V_CHECK(cudaEventElapsedTime(&rm, r0, r1));
      T3V_CHECK(cudaEventElapsedTime(&am, g0, all));
      if (i < o.warmup) continue;
      g.push_back(1000.0 * gm);
      r.push_back(1000.0 * rm);
      t.push_back(1000.0 * am);
    }
    for (cudaEvent_t e : {g0, g1, r0, r1, all}) T3V_CHECK(cudaEventDestroy(e));
    g_us = t3v::median(g);
    r_us = blocks ? t3v::median(r) : 0.0;
    all_us = t3v::median(t);
  }
};

void run(const Options& o, Bench& bench, const std::string& command) {
  t3v::CsvWriter out(o.out);
  out.line(t3v::provenance_line(o.device, command));
  out.line("# cublas=" + bench.blas.version() + ", runs=" + std::to_string(o.runs) +
           ", warmup=" + std::to_string(o.warmup) + ", red_threads=" + std::to_string(o.threads) +
           ", red_smem_bytes=" + std::to_string(bench.smem) +
           ", red_stream_priority=" + (o.high_priority ? "highest" : "default") +
           ", red_blocks=0 means not launched (red columns 0, slowdown 1)");
  out.line(kColumns);
  const double g_alone = t3v::median_us(bench.sg, o.warmup, o.runs, [&] { bench.gemm(); });
  for (int blocks : o.blocks) {
    const double r_alone =
        blocks ? t3v::median_us(bench.sr, o.warmup, o.runs, [&] { bench.reduce(blocks); }) : 0.0;
    double g_tog = 0, r_tog = 0, all = 0;
    bench.together(blocks, g_tog, r_tog, all);
    const double sum = g_alone + r_alone;
    char row[512];
    std::snprintf(row, sizeof row,
                  "%d,%d,%d,%d,%d,%s,%llu,%.2f,%.2f,%.2f,%.2f,%.2f,%.4f,%.4f,%.4f,%.4f", blocks,
                  bench.sms_used(blocks), o.m, o.n, o.k, t3v::dtype_name(o.dtype),
                  static_cast<unsigned long long>(o.red_bytes), g_alone, r_alone, g_tog, r_tog, all,
                  g_tog / g_alone, blocks ? r_tog / r_alone : 1.0, sum / all,
                  sum / std::max(g_alone, r_alone));
    out.line(row);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  T3V_CHECK(cudaSetDevice(o.device));
  const int sms = t3v::device_attribute(cudaDevAttrMultiProcessorCount, o.device);
  for (int blocks : o.blocks) {
    if (blocks > sms) t3v::usage_error(argv[0], "--blocks value above the SM count");
  }
  int least = 0, greatest = 0;
  T3V_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t sg, sr;
  T3V_CHECK(cudaStreamCreateWithPriority(&sg, cudaStreamNonBlocking, least));
  T3V_CHECK(
      cudaStreamCreateWithPriority(&sr, cudaStreamNonBlocking, o.high_priority ? greatest : least));

  const size_t sa = size_t(o.m) * o.k, sb = size_t(o.k) * o.n, sc = size_t(o.m) * o.n;
  void *a, *b, *c;
  uint4 *ra, *rb, *rc;
  unsigned* smids;
  T3V_CHECK(cudaMalloc(&a, 2 * sa));
  T3V_CHECK(cudaMalloc(&b, 2 * sb));
  T3V_CHECK(cudaMalloc(&c, 2 * sc));
  T3V_CHECK(cudaMalloc(&ra, o.red_bytes));
  T3V_CHECK(cudaMalloc(&rb, o.red_bytes));
  T3V_CHECK(cudaMalloc(&rc, o.red_bytes));
  T3V_CHECK(cudaMalloc(&smids, sms * sizeof(unsigned)));
  t3v::fill_random(o.dtype, a, sa, 1, sg);
  t3v::fill_random(o.dtype, b, sb, 2, sg);
  t3v::fill_random(reinterpret_cast<__half*>(ra), o.red_bytes / 2, 3, sg);
  t3v::fill_random(reinterpret_cast<__half*>(rb), o.red_bytes / 2, 4, sg);
  T3V_CHECK(cudaStreamSynchronize(sg));

  size_t smem = 0;
  if (o.exclusive) {  // one block per SM: ask for all the shared memory a block may opt in to
    smem = t3v::device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, o.device);
    T3V_CHECK(cudaFuncSetAttribute(reduce_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(smem)));
  }
  {
    t3v::Blas blas(sg);
    Bench bench{o, blas, sg, sr, a, b, c, ra, rb, rc, smids, smem};
    run(o, bench, t3v::command_line(argc, argv));
  }
  T3V_CHECK(cudaStreamDestroy(sg));
  T3V_CHECK(cudaStreamDestroy(sr));
  for (void* p : {a, b, c, static_cast<void*>(ra), static_cast<void*>(rb), static_cast<void*>(rc),
                  static_cast<void*>(smids)}) {
    T3V_CHECK(cudaFree(p));
  }
  return 0;
}
