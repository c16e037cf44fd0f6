// contention_bench: a real-GPU analogue of T3 Fig. 6 (t3-paper.md; measurements.md §4): a cuBLAS
// GEMM (default 8192^3 FP16, FP32 accumulate) on one stream, concurrent with a memory-bound
// ring-reduction-like kernel (c = a + b, large FP16 buffers, 16-byte accesses) on a second,
// higher-priority stream, persistent with exactly k blocks of max opt-in shared memory, so each
// block owns one SM (checked with %smid). The GEMM setup, launch and timed section are
// cublas_util.cuh's, shared with gemm_bench; the reduction is enqueued first, then the GEMM is
// timed exactly as when alone, so k = 0 (no reduction) is a control with gemm_slowdown ~1.
// Fidelity: per row an idle wait (--idle-ms) and warm-up, then each repetition times GEMM alone,
// reduction alone and both together back to back, in alternating order (ABBA: alone first in even
// repetitions, together first in odd ones), so all see the same power/clock state; each kernel's
// time comes from events on its own stream; medians of >= 20 runs. The SM clock is probed
// (clock64 / globaltimer, untimed) after each run; its medians are the *_sm_mhz columns.
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
    "                        [--runs N] [--warmup N] [--idle-ms MS] [--device D] [--out FILE.csv]\n"
    "                        [--help]\n"
    "GEMM alone, reduction kernel alone (k blocks), and both concurrently on two streams,\n"
    "interleaved per repetition (alternating order) so that all see the same clock state.\n"
    "  --m/--n/--k D     GEMM shape, row-major C[MxN] = A[MxK].B[KxN] (default 8192 each)\n"
    "  --dtype T         fp16 or bf16 (default fp16)\n"
    "  --red-bytes SIZE  size of each reduction buffer a, b, c (default 256M)\n"
    "  --blocks LIST     comma list of k = reduction blocks (default 0,4,8,16,32; 0 = none)\n"
    "  --threads T       threads per reduction block (default 512, as NCCL's Simple protocol)\n"
    "  --shared-sm       do not reserve a whole SM per reduction block (no max shared memory)\n"
    "  --same-priority   reduction stream at default priority (default: highest priority)\n"
    "  --runs N          timed runs per point, median reported (default 20, minimum 20)\n"
    "  --warmup N        untimed repetitions first (default 5)\n"
    "  --idle-ms MS      idle time before each row, so the SM clock recovers (default 100)\n"
    "  --device D        CUDA device (default 0)\n"
    "  --out FILE        output CSV (default stdout)\n";

constexpr const char* kColumns =
    "red_blocks,red_sms,m,n,k,dtype,red_bytes,gemm_alone_us,red_alone_us,gemm_together_us,"
    "red_together_us,together_us,gemm_slowdown,red_slowdown,speedup,ideal_speedup,"
    "gemm_alone_sm_mhz,red_alone_sm_mhz,together_sm_mhz";

struct Options {
  int m = 8192, n = 8192, k = 8192, threads = 512, device = 0;
  int runs = t3v::kMinRuns, warmup = t3v::kGemmWarmup, idle_ms = t3v::kGemmIdleMs;
  t3v::DType dtype = t3v::DType::kFp16;
  uint64_t red_bytes = 256ull << 20;
  std::vector<int> blocks{0, 4, 8, 16, 32};
  bool exclusive = true, high_priority = true;
  std::string out;
};

Options parse(int argc, char** argv) {
  Options o;
  const char* p = argv[0];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      std::exit(0);
    } else if (t3v::gemm_shape_option(a, argc, argv, i, o)) {
      continue;
    } else if (a == "--red-bytes") {
      o.red_bytes = t3v::parse_size(p, t3v::option_value(argc, argv, i));
    } else if (a == "--blocks") {
      o.blocks = t3v::parse_int_list(p, t3v::option_value(argc, argv, i), 0);
    } else if (a == "--threads") {
      o.threads = t3v::parse_int(p, t3v::option_value(argc, argv, i), 32);
    } else if (a == "--shared-sm") {
      o.exclusive = false;
    } else if (a == "--same-priority") {
      o.high_priority = false;
    } else if (!t3v::gemm_timing_option(a, argc, argv, i, o)) {
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

// One row's medians: times (us) and SM clocks (MHz; 0 where nothing was probed).
struct Row {
  double g_alone = 0, r_alone = 0, g_tog = 0, r_tog = 0, all = 0;
  double g_alone_mhz = 0, r_alone_mhz = 0, tog_mhz = 0;
};

class Bench {
 public:
  // `blas` runs on the GEMM stream; `smids` holds 2 x `sms` entries (together, reduction alone).
  Bench(const Options& o, t3v::Blas& blas, cudaStream_t sr, const t3v::Gemm& g, uint4* ra,
        uint4* rb, uint4* rc, unsigned* smids, int sms, size_t smem)
      : o_(o),
        blas_(blas),
        clock_(3 * (o.warmup + o.runs)),
        timer_(blas, clock_),
        sr_(sr),
        g_(g),
        ra_(ra),
        rb_(rb),
        rc_(rc),
        smids_(smids),
        sms_(sms),
        smem_(smem) {
    for (cudaEvent_t* e : {&g0_, &g1_, &r0_, &r1_, &all_}) T3V_CHECK(cudaEventCreate(e));
  }
  ~Bench() {
    for (cudaEvent_t e : {g0_, g1_, r0_, r1_, all_}) T3V_CHECK(cudaEventDestroy(e));
  }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  t3v::Blas& blas() { return blas_; }
  size_t smem() const { return smem_; }

  // Distinct SMs the reduction ran on in the last together run.
  int sms_used(int blocks) {
    std::vector<unsigned> ids(blocks);
    if (blocks == 0) return 0;
    T3V_CHECK(cudaMemcpy(ids.data(), smids_, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
    return static_cast<int>(std::set<unsigned>(ids.begin(), ids.end()).size());
  }

  // settle, then warmup + runs repetitions of GEMM alone, reduction alone (blocks > 0) and both
  // together, alone first in even repetitions and together first in odd ones (ABBA).
  Row measure(int blocks) {
    t3v::settle(o_.idle_ms);
    clock_.clear();
    std::vector<double> ga, ra, gt, rt, at;  // gemm / red alone, gemm / red / all together
    std::vector<int> ga_slot, ra_slot, t_slot;
    for (int i = 0; i < o_.warmup + o_.runs; ++i) {
      const bool timed = i >= o_.warmup, alone_first = i % 2 == 0;
      int slot = 0;
      const auto gemm_alone = [&] {
        const double us = timer_.run(g_, slot);
        if (!timed) return;
        ga.push_back(us);
        ga_slot.push_back(slot);
      };
      const auto both = [&] {
        double g_us = 0, r_us = 0, all_us = 0;
        together(blocks, g_us, r_us, all_us, slot);
        if (!timed) return;
        gt.push_back(g_us);
        rt.push_back(r_us);
        at.push_back(all_us);
        t_slot.push_back(slot);
      };
      if (alone_first) {
        gemm_alone();
      } else {
        both();
      }
      if (blocks) {
        const double us = red_alone(blocks, slot);
        if (timed) {
          ra.push_back(us);
          ra_slot.push_back(slot);
        }
      }
      if (alone_first) {
        both();
      } else {
        gemm_alone();
      }
    }
    const std::vector<double> mhz = clock_.mhz();
    const auto median_mhz = [&](const std::vector<int>& slots) {
      std::vector<double> v;
      for (int s : slots) v.push_back(mhz[s]);
      return t3v::median(v);
    };
    Row r;
    r.g_alone = t3v::median(ga);
    r.r_alone = t3v::median(ra);
    r.g_tog = t3v::median(gt);
    r.r_tog = blocks ? t3v::median(rt) : 0.0;
    r.all = t3v::median(at);
    r.g_alone_mhz = median_mhz(ga_slot);
    r.r_alone_mhz = median_mhz(ra_slot);
    r.tog_mhz = median_mhz(t_slot);
    return r;
  }

 private:
  void reduce(int blocks, unsigned* smids) {
    reduce_kernel<<<blocks, o_.threads, smem_, sr_>>>(ra_, rb_, rc_, o_.red_bytes / 16, smids);
    T3V_CHECK_LAUNCH();
  }

  // The reduction alone, timed by events on its stream, then the SM-clock probe and a host sync
  // (as GemmTimer::run does for the GEMM). Returns its time in us.
  double red_alone(int blocks, int& slot) {
    T3V_CHECK(cudaEventRecord(r0_, sr_));
    reduce(blocks, smids_ + sms_);
    T3V_CHECK(cudaEventRecord(r1_, sr_));
    slot = clock_.record(sr_);
    T3V_CHECK(cudaStreamSynchronize(sr_));
    return t3v::elapsed_us(r0_, r1_);
  }

  // Both kernels: the reduction (none for blocks = 0) enqueued first, so its blocks take their SMs
  // before the GEMM's CTAs fill the GPU, then the GEMM's timed section exactly as when alone
  // (t3v::timed_gemm); all_us runs from the earlier start to the later end. Then the SM-clock
  // probe on the GEMM stream and a host sync.
  void together(int blocks, double& g_us, double& r_us, double& all_us, int& slot) {
    const cudaStream_t sg = blas_.stream();
    if (blocks) {
      T3V_CHECK(cudaEventRecord(r0_, sr_));
      reduce(blocks, smids_);
    }
    t3v::timed_gemm(blas_, g_, g0_, g1_);
    if (blocks) {
      T3V_CHECK(cudaEventRecord(r1_, sr_));
      T3V_CHECK(cudaStreamWaitEvent(sg, r1_, 0));
    }
    T3V_CHECK(cudaEventRecord(all_, sg));
    slot = clock_.record(sg);
    T3V_CHECK(cudaStreamSynchronize(sg));
    g_us = t3v::elapsed_us(g0_, g1_);
    r_us = blocks ? t3v::elapsed_us(r0_, r1_) : 0.0;
    all_us = t3v::elapsed_us(g0_, all_);
    if (blocks) all_us = std::max(all_us, t3v::elapsed_us(r0_, all_));
  }

  const Options& o_;
  t3v::Blas& blas_;
  t3v::SmClock clock_;
  t3v::GemmTimer timer_;
  cudaStream_t sr_;  // reduction stream; the GEMM stream is blas_.stream()
  t3v::Gemm g_;
  uint4 *ra_, *rb_, *rc_;  // reduction buffers
  unsigned* smids_;
  int sms_;
  size_t smem_;
  cudaEvent_t g0_ = nullptr, g1_ = nullptr, r0_ = nullptr, r1_ = nullptr, all_ = nullptr;
};

void run(const Options& o, Bench& bench, const std::string& command) {
  t3v::CsvWriter out(o.out);
  out.line(t3v::provenance_line(o.device, command));
  out.line("# cublas=" + bench.blas().version() + ", runs=" + std::to_string(o.runs) +
           ", warmup=" + std::to_string(o.warmup) + ", idle_ms=" + std::to_string(o.idle_ms) +
           ", red_threads=" + std::to_string(o.threads) +
           ", red_smem_bytes=" + std::to_string(bench.smem()) +
           ", red_stream_priority=" + (o.high_priority ? "highest" : "default") +
           ", red_blocks=0 means not launched (red columns 0, slowdown 1)");
  out.line(t3v::Blas::setup_line());
  out.line(t3v::gemm_timing_line(o.warmup, o.runs, o.idle_ms) +
           " (per row; a repetition is GEMM alone, reduction alone, together, in ABBA order)");
  out.line(
      "# gemm_alone_us is timed as gemm_bench times a shape (same launch, events, probe, "
      "warm-up count, idle); unlike gemm_bench, its runs alternate with the reduction-alone and "
      "together "
      "runs, so that all share one clock state. gemm_together_us is the same timed launch "
      "with the reduction enqueued first on the other stream; red_blocks=0 enqueues none, so "
      "that row is a control (gemm_slowdown ~1). *_sm_mhz: median SM clock probed right "
      "after each GEMM-alone, reduction-alone and together run");
  out.line(kColumns);
  for (int blocks : o.blocks) {
    const Row r = bench.measure(blocks);
    const double sum = r.g_alone + r.r_alone;
    char row[640];
    std::snprintf(
        row, sizeof row,
        "%d,%d,%d,%d,%d,%s,%llu,%.2f,%.2f,%.2f,%.2f,%.2f,%.4f,%.4f,%.4f,%.4f,%.0f,%.0f,%.0f",
        blocks, bench.sms_used(blocks), o.m, o.n, o.k, t3v::dtype_name(o.dtype),
        static_cast<unsigned long long>(o.red_bytes), r.g_alone, r.r_alone, r.g_tog, r.r_tog, r.all,
        r.g_tog / r.g_alone, blocks ? r.r_tog / r.r_alone : 1.0, sum / r.all,
        sum / std::max(r.g_alone, r.r_alone), r.g_alone_mhz, r.r_alone_mhz, r.tog_mhz);
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
  cudaStream_t sg = t3v::create_gemm_stream(), sr;
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
  T3V_CHECK(cudaMalloc(&smids, 2 * sms * sizeof(unsigned)));
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
    const t3v::Gemm g{o.dtype, o.m, o.n, o.k, a, b, c};
    Bench bench(o, blas, sr, g, ra, rb, rc, smids, sms, smem);
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
