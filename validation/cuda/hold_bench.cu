// hold_bench: how a cuBLAS GEMM behaves when another kernel holds some SMs, with no memory traffic
// from that kernel, so only SM sharing (not bandwidth, L2 or power) is measured. A hold kernel of
// k blocks, each asking for the maximum opt-in shared memory so that it owns a whole SM (checked
// with %smid), is launched first on a highest-priority stream; its blocks spin on one thread and
// then exit, either after a fixed time (--hold-us 50: 50 us from the block's start, %globaltimer)
// or when the GEMM has ended ("end": a 1-thread kernel on the GEMM stream, after the GEMM's stop
// event, raises a flag the blocks poll; a watchdog, --end-cap-us, ends the hold anyway and counts
// it in hold_timeouts, since a GEMM whose CTAs must all be resident together would otherwise never
// end: a first run of this program on an H200 hung in this mode, cause not established). Before its
// start event the GEMM stream runs a 1-thread gate that waits until all k blocks are resident, so
// the GEMM always starts with exactly k SMs taken. Persistent GEMM kernels (a grid of one CTA per
// SM, e.g. cuBLAS's nvjet kernels on Hopper) then cannot place every CTA: how their time grows with
// k and with the hold time shows how the kernel shares out its tiles (a static per-CTA schedule
// waits for the held SMs; a dynamic one does not). Fidelity as contention_bench: per row an idle
// wait, warm-up, then per repetition GEMM alone and GEMM under the hold in alternating order
// (ABBA), medians of >= 20 runs, SM clock probed after each run. held_during_gemm_us = time from
// the GEMM's start event to the hold kernel's end.
#include <set>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "cublas_util.cuh"

namespace {

constexpr const char* kHelp =
    "usage: hold_bench [--m M] [--n N] [--k K] [--dtype fp16|bf16] [--blocks LIST]\n"
    "                  [--hold-us LIST] [--runs N] [--warmup N] [--idle-ms MS] [--device D]\n"
    "                  [--out FILE.csv] [--help]\n"
    "GEMM alone and while a kernel launched first holds k whole SMs (no memory traffic).\n"
    "  --m/--n/--k D     GEMM shape, row-major C[MxN] = A[MxK].B[KxN] (default 8192 each)\n"
    "  --dtype T         fp16 or bf16 (default bf16)\n"
    "  --blocks LIST     comma list of k = SMs held (default 1,2,4,8,16,32,66)\n"
    "  --hold-us LIST    comma list of hold times in us, or 'end' = until the GEMM ends\n"
    "                    (default end); every (k, hold) pair is a row\n"
    "  --end-cap-us US     longest 'end' hold before the watchdog releases it (default 20000)\n"
    "  --runs N          timed runs per row, median reported (default 20, minimum 20)\n"
    "  --warmup N        untimed repetitions first (default 5)\n"
    "  --idle-ms MS      idle time before each row, so the SM clock recovers (default 100)\n"
    "  --device D        CUDA device (default 0)\n"
    "  --out FILE        output CSV (default stdout)\n";

constexpr const char* kColumns =
    "hold_blocks,hold_sms,hold,m,n,k,dtype,gemm_alone_us,gemm_held_us,gemm_slowdown,"
    "held_during_gemm_us,hold_timeouts,gemm_alone_sm_mhz,gemm_held_sm_mhz,held_smids";

constexpr int kUntilEnd = -1;  // --hold-us "end"

struct Options {
  int m = 8192, n = 8192, k = 8192, device = 0, end_cap_us = 20000;
  int runs = t3v::kMinRuns, warmup = t3v::kGemmWarmup, idle_ms = t3v::kGemmIdleMs;
  t3v::DType dtype = t3v::DType::kBf16;
  std::vector<int> blocks{1, 2, 4, 8, 16, 32, 66};
  std::vector<int> hold_us{kUntilEnd};
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
    } else if (a == "--blocks") {
      o.blocks = t3v::parse_int_list(p, t3v::option_value(argc, argv, i), 1);
    } else if (a == "--end-cap-us") {
      o.end_cap_us = t3v::parse_int(p, t3v::option_value(argc, argv, i), 1);
    } else if (a == "--hold-us") {
      o.hold_us = t3v::parse_int_list(p, t3v::option_value(argc, argv, i), 0, "end", kUntilEnd);
    } else if (!t3v::gemm_timing_option(a, argc, argv, i, o)) {
      t3v::usage_error(p, "unknown option '" + a + "'");
    }
  }
  return o;
}

// Block b writes its SM id to smids[b], counts itself in *started, then holds its SM: for hold_ns
// of %globaltimer, or (hold_ns == 0) until *release is non-zero or cap_ns have passed (then it
// counts itself in *timeouts).
__global__ void hold_kernel(unsigned long long hold_ns, unsigned long long cap_ns,
                            const volatile int* release, unsigned* started, unsigned* timeouts,
                            unsigned* smids) {
  if (threadIdx.x != 0) return;
  const unsigned long long t0 = t3v::global_ns();
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  smids[blockIdx.x] = smid;
  __threadfence();
  atomicAdd(started, 1u);
  if (hold_ns > 0) {
    while (t3v::global_ns() < t0 + hold_ns) {
    }
  } else {
    while (*release == 0) {
      if (t3v::global_ns() >= t0 + cap_ns) {
        atomicAdd(timeouts, 1u);
        return;
      }
    }
  }
}

// The GEMM stream's gate: returns once `blocks` hold blocks have started.
__global__ void gate_kernel(const volatile unsigned* started, unsigned blocks) {
  while (*started < blocks) {
  }
}

__global__ void release_kernel(int* release) { *release = 1; }

struct Row {
  double alone = 0, held = 0, overlap = 0, alone_mhz = 0, held_mhz = 0;
  unsigned timeouts = 0;  // hold blocks the watchdog released, over the row's timed runs
};

class Bench {
 public:
  Bench(const Options& o, t3v::Blas& blas, cudaStream_t sh, const t3v::Gemm& g, int sms,
        size_t smem)
      : o_(o),
        blas_(blas),
        clock_(2 * (o.warmup + o.runs)),
        timer_(blas, clock_),
        sh_(sh),
        g_(g),
        sms_(sms),
        smem_(smem) {
    T3V_CHECK(cudaMalloc(&release_, sizeof(int)));
    T3V_CHECK(cudaMalloc(&started_, 2 * sizeof(unsigned)));  // started, timeouts
    T3V_CHECK(cudaMalloc(&smids_, sms * sizeof(unsigned)));
    for (cudaEvent_t* e : {&g0_, &g1_, &h1_}) T3V_CHECK(cudaEventCreate(e));
  }
  ~Bench() {
    for (cudaEvent_t e : {g0_, g1_, h1_}) T3V_CHECK(cudaEventDestroy(e));
    T3V_CHECK(cudaFree(release_));
    T3V_CHECK(cudaFree(started_));
    T3V_CHECK(cudaFree(smids_));
  }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  t3v::Blas& blas() { return blas_; }

  // Distinct SMs and their ids (';'-separated, sorted) of the last held run's blocks.
  std::pair<int, std::string> smids(int blocks) {
    std::vector<unsigned> ids(blocks);
    T3V_CHECK(cudaMemcpy(ids.data(), smids_, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
    const std::set<unsigned> unique(ids.begin(), ids.end());
    std::string s;
    for (unsigned id : unique) s += (s.empty() ? "" : ";") + std::to_string(id);
    return {static_cast<int>(unique.size()), s};
  }

  Row measure(int blocks, int hold_us) {
    t3v::settle(o_.idle_ms);
    clock_.clear();
    std::vector<double> alone, held, overlap;
    std::vector<int> alone_slot, held_slot;
    unsigned timeouts = 0;
    for (int i = 0; i < o_.warmup + o_.runs; ++i) {
      const bool timed = i >= o_.warmup;
      for (int part = 0; part < 2; ++part) {
        const bool do_alone = (part == 0) == (i % 2 == 0);  // ABBA
        int slot = 0;
        if (do_alone) {
          const double us = timer_.run(g_, slot);
          if (!timed) continue;
          alone.push_back(us);
          alone_slot.push_back(slot);
        } else {
          double ov = 0;
          unsigned to = 0;
          const double us = run_held(blocks, hold_us, ov, to, slot);
          if (!timed) continue;
          timeouts += to;
          held.push_back(us);
          overlap.push_back(ov);
          held_slot.push_back(slot);
        }
      }
    }
    const std::vector<double> mhz = clock_.mhz();
    const auto median_mhz = [&](const std::vector<int>& slots) {
      std::vector<double> v;
      for (int s : slots) v.push_back(mhz[s]);
      return t3v::median(v);
    };
    return {t3v::median(alone),     t3v::median(held),     t3v::median(overlap),
            median_mhz(alone_slot), median_mhz(held_slot), timeouts};
  }

 private:
  // One GEMM under the hold; returns its time (us), the hold's overlap with it in `overlap_us` and
  // the hold blocks the watchdog released in `timeouts`.
  double run_held(int blocks, int hold_us, double& overlap_us, unsigned& timeouts, int& slot) {
    const cudaStream_t sg = blas_.stream();
    T3V_CHECK(cudaMemsetAsync(release_, 0, sizeof(int), sh_));
    T3V_CHECK(cudaMemsetAsync(started_, 0, 2 * sizeof(unsigned), sh_));
    T3V_CHECK(cudaStreamSynchronize(sh_));
    const unsigned long long hold_ns = hold_us == kUntilEnd ? 0ull : 1000ull * hold_us;
    const unsigned long long cap_ns = 1000ull * o_.end_cap_us;
    hold_kernel<<<blocks, 32, smem_, sh_>>>(hold_ns, cap_ns, release_, started_, started_ + 1,
                                            smids_);
    T3V_CHECK_LAUNCH();
    T3V_CHECK(cudaEventRecord(h1_, sh_));
    gate_kernel<<<1, 1, 0, sg>>>(started_, static_cast<unsigned>(blocks));
    T3V_CHECK_LAUNCH();
    t3v::timed_gemm(blas_, g_, g0_, g1_);
    if (hold_us == kUntilEnd) {
      release_kernel<<<1, 1, 0, sg>>>(release_);
      T3V_CHECK_LAUNCH();
    }
    T3V_CHECK(cudaStreamWaitEvent(sg, h1_, 0));
    slot = clock_.record(sg);
    T3V_CHECK(cudaStreamSynchronize(sg));
    overlap_us = std::max(0.0, t3v::elapsed_us(g0_, h1_));
    T3V_CHECK(cudaMemcpy(&timeouts, started_ + 1, sizeof(unsigned), cudaMemcpyDeviceToHost));
    return t3v::elapsed_us(g0_, g1_);
  }

  const Options& o_;
  t3v::Blas& blas_;
  t3v::SmClock clock_;
  t3v::GemmTimer timer_;
  cudaStream_t sh_;  // hold stream; the GEMM stream is blas_.stream()
  t3v::Gemm g_;
  int sms_;
  size_t smem_;
  int* release_ = nullptr;
  unsigned* started_ = nullptr;
  unsigned* smids_ = nullptr;
  cudaEvent_t g0_ = nullptr, g1_ = nullptr, h1_ = nullptr;
};

void run(const Options& o, Bench& bench, const std::string& command, size_t smem) {
  t3v::CsvWriter out(o.out);
  out.line(t3v::provenance_line(o.device, command));
  out.line("# cublas=" + bench.blas().version() + ", runs=" + std::to_string(o.runs) +
           ", warmup=" + std::to_string(o.warmup) + ", idle_ms=" + std::to_string(o.idle_ms) +
           ", hold_threads=32 (one spins), hold_smem_bytes=" + std::to_string(smem) +
           ", hold_stream_priority=highest, hold=end means until the GEMM's stop event (watchdog: "
           "end_cap_us=" +
           std::to_string(o.end_cap_us) +
           "), else us "
           "from each hold block's start");
  out.line(t3v::Blas::setup_line());
  out.line(t3v::gemm_timing_line(o.warmup, o.runs, o.idle_ms) +
           " (per row; a repetition is GEMM alone and GEMM held, in ABBA order; the held GEMM's "
           "start event follows a gate kernel that waits until every hold block is resident)");
  out.line(kColumns);
  for (int blocks : o.blocks) {
    for (int hold : o.hold_us) {
      const Row r = bench.measure(blocks, hold);
      const auto [used, ids] = bench.smids(blocks);
      char row[256];
      std::snprintf(row, sizeof row, "%d,%d,%s,%d,%d,%d,%s,%.2f,%.2f,%.4f,%.2f,%u,%.0f,%.0f,",
                    blocks, used, hold == kUntilEnd ? "end" : std::to_string(hold).c_str(), o.m,
                    o.n, o.k, t3v::dtype_name(o.dtype), r.alone, r.held, r.held / r.alone,
                    r.overlap, r.timeouts, r.alone_mhz, r.held_mhz);
      out.line(row + ids);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  T3V_CHECK(cudaSetDevice(o.device));
  const int sms = t3v::device_attribute(cudaDevAttrMultiProcessorCount, o.device);
  for (int blocks : o.blocks) {
    if (blocks >= sms) t3v::usage_error(argv[0], "--blocks value must be below the SM count");
  }
  int least = 0, greatest = 0;
  T3V_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t sg = t3v::create_gemm_stream(), sh;
  T3V_CHECK(cudaStreamCreateWithPriority(&sh, cudaStreamNonBlocking, greatest));

  const size_t sa = size_t(o.m) * o.k, sb = size_t(o.k) * o.n, sc = size_t(o.m) * o.n;
  void *a, *b, *c;
  T3V_CHECK(cudaMalloc(&a, 2 * sa));
  T3V_CHECK(cudaMalloc(&b, 2 * sb));
  T3V_CHECK(cudaMalloc(&c, 2 * sc));
  t3v::fill_random(o.dtype, a, sa, 1, sg);
  t3v::fill_random(o.dtype, b, sb, 2, sg);
  T3V_CHECK(cudaStreamSynchronize(sg));

  // One block per SM: all the shared memory a block may opt in to.
  const size_t smem = t3v::device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, o.device);
  T3V_CHECK(cudaFuncSetAttribute(hold_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(smem)));
  {
    t3v::Blas blas(sg);
    const t3v::Gemm g{o.dtype, o.m, o.n, o.k, a, b, c};
    Bench bench(o, blas, sh, g, sms, smem);
    run(o, bench, t3v::command_line(argc, argv), smem);
  }
  T3V_CHECK(cudaStreamDestroy(sg));
  T3V_CHECK(cudaStreamDestroy(sh));
  for (void* p : {a, b, c}) T3V_CHECK(cudaFree(p));
  return 0;
}
