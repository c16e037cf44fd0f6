// nccl_bench: NCCL all-reduce / reduce-scatter / all-gather over all visible GPUs from one process
// (ncclCommInitAll), sizes -b..-e by factor -f, printed in nccl-tests' layout (hardware.md §5.5):
// algbw = S/t with S = total bytes; busbw = algbw * 2(n-1)/n (all-reduce) or (n-1)/n (RS, AG).
// Fidelity: per iteration, time = max over GPUs of its own stream's event interval; the reported
// time is the median of >= 20 back-to-back iterations after warm-up (nccl-tests reports the mean).
// Inputs are random integers 1..8 (exact in every type; sums exact up to 32 GPUs), so #wrong is
// exact. With one GPU or none it prints a message and exits 0.
#include <nccl.h>

#include <string>
#include <vector>

#include "bench_common.cuh"

namespace t3v {
inline void check_status(ncclResult_t status, const char* expr, const char* file, int line) {
  if (status == ncclSuccess) return;
  std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, expr, ncclGetErrorString(status));
  std::exit(1);
}
}  // namespace t3v

namespace {

constexpr const char* kHelp =
    "usage: nccl_bench [-b SIZE] [-e SIZE] [-f FACTOR] [-o all_reduce|reduce_scatter|all_gather]\n"
    "                  [-d float|half|bfloat16] [-n ITERS] [-w WARMUP] [-c 0|1]\n"
    "                  [--out FILE] [--help]\n"
    "NCCL collective over all visible GPUs of this process, nccl-tests output layout.\n"
    "  -b, --minbytes SIZE    smallest total size S in bytes, K/M/G allowed (default 32K)\n"
    "  -e, --maxbytes SIZE    largest total size (default 1G)\n"
    "  -f, --stepfactor F     size multiplier (default 2)\n"
    "  -o, --op OP            all_reduce (default), reduce_scatter or all_gather\n"
    "  -d, --datatype T       float (default), half or bfloat16; reduction op is sum\n"
    "  -n, --iters N          timed iterations, median reported (default 20, minimum 20)\n"
    "  -w, --warmup_iters N   untimed iterations first (default 5)\n"
    "  -c, --check 0|1        verify results once per size (default 1)\n"
    "  --out FILE             output file (default stdout)\n";

enum class Op { kAllReduce, kReduceScatter, kAllGather };

struct Options {
  uint64_t min_bytes = 32ull << 10, max_bytes = 1ull << 30;
  int factor = 2, iters = 20, warmup = 5, check = 1;
  Op op = Op::kAllReduce;
  ncclDataType_t type = ncclFloat32;
  std::string type_name = "float", out;
};

Options parse(int argc, char** argv) {
  Options o;
  const char* p = argv[0];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto is = [&](const char* s, const char* l) { return a == s || a == l; };
    if (is("-h", "--help")) {
      std::fputs(kHelp, stdout);
      std::exit(0);
    } else if (is("-b", "--minbytes")) {
      o.min_bytes = t3v::parse_size(p, t3v::option_value(argc, argv, i));
    } else if (is("-e", "--maxbytes")) {
      o.max_bytes = t3v::parse_size(p, t3v::option_value(argc, argv, i));
    } else if (is("-f", "--stepfactor")) {
      o.factor = t3v::parse_int(p, t3v::option_value(argc, argv, i), 2);
    } else if (is("-o", "--op")) {
      const std::string v = t3v::option_value(argc, argv, i);
      const Op ops[] = {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather};
      const char* names[] = {"all_reduce", "reduce_scatter", "all_gather"};
      const int at = static_cast<int>(std::find(names, names + 3, v) - names);
      if (at == 3) t3v::usage_error(p, "bad op '" + v + "'");
      o.op = ops[at];
    } else if (is("-d", "--datatype")) {
      o.type_name = t3v::option_value(argc, argv, i);
      const ncclDataType_t types[] = {ncclFloat32, ncclFloat16, ncclBfloat16};
      const char* names[] = {"float", "half", "bfloat16"};
      const int at = static_cast<int>(std::find(names, names + 3, o.type_name) - names);
      if (at == 3) t3v::usage_error(p, "bad datatype '" + o.type_name + "'");
      o.type = types[at];
    } else if (is("-n", "--iters")) {
      o.iters = t3v::parse_int(p, t3v::option_value(argc, argv, i), t3v::kMinRuns);
    } else if (is("-w", "--warmup_iters")) {
      o.warmup = t3v::parse_int(p, t3v::option_value(argc, argv, i), 1);
    } else if (is("-c", "--check")) {
      o.check = t3v::parse_int(p, t3v::option_value(argc, argv, i), 0) != 0;
    } else if (a == "--out") {
      o.out = t3v::option_value(argc, argv, i);
    } else {
      t3v::usage_error(p, "unknown option '" + a + "'");
    }
  }
  if (o.min_bytes == 0 || o.min_bytes > o.max_bytes) t3v::usage_error(p, "need 0 < -b <= -e");
  return o;
}

size_t type_size(ncclDataType_t t) { return t == ncclFloat32 ? 4 : 2; }

// Random integer 1..8 for element i of rank r: exactly representable in float, half and bfloat16.
__host__ __device__ inline float value(int rank, size_t i) {
  return 1.0f + static_cast<float>(t3v::splitmix64((uint64_t(rank) << 48) ^ i) & 7u);
}

template <typename T>
__device__ inline float to_float(T x) {
  return static_cast<float>(x);
}

// mode 0: out[i] = value(rank, base + i). mode 1: counts out[i] != expected into *wrong, where
// expected = sum over r of value(r, base + i) (reduce) or value(i / per_rank, i % per_rank).
template <typename T>
__global__ void data_kernel(T* out, size_t n, int rank, size_t base, int mode, int nranks,
                            size_t per_rank, unsigned long long* wrong) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    if (mode == 0) {
      out[i] = static_cast<T>(value(rank, base + i));
      continue;
    }
    float expected = 0.0f;
    if (per_rank == 0) {
      for (int r = 0; r < nranks; ++r) expected += value(r, base + i);
    } else {
      expected = value(static_cast<int>(i / per_rank), i % per_rank);
    }
    if (to_float(out[i]) != expected) atomicAdd(wrong, 1ull);
  }
}

void launch_data(const Options& o, void* buf, size_t n, int rank, size_t base, int mode, int nranks,
                 size_t per_rank, unsigned long long* wrong, cudaStream_t s) {
  if (o.type == ncclFloat32) {
    data_kernel<<<512, 256, 0, s>>>(static_cast<float*>(buf), n, rank, base, mode, nranks, per_rank,
                                    wrong);
  } else if (o.type == ncclFloat16) {
    data_kernel<<<512, 256, 0, s>>>(static_cast<__half*>(buf), n, rank, base, mode, nranks,
                                    per_rank, wrong);
  } else {
    data_kernel<<<512, 256, 0, s>>>(static_cast<__nv_bfloat16*>(buf), n, rank, base, mode, nranks,
                                    per_rank, wrong);
  }
  T3V_CHECK_LAUNCH();
}

struct Gpu {
  ncclComm_t comm;
  cudaStream_t stream;
  void *send, *recv;  // max_bytes each
  unsigned long long* wrong;
};

// Element counts for total size S: `count` as nccl-tests prints it, in/out buffer lengths.
struct Counts {
  size_t count, in, out;
};

Counts counts(const Options& o, size_t elems, int n) {
  if (o.op == Op::kAllReduce) return {elems, elems, elems};
  const size_t per = elems / n;
  return o.op == Op::kReduceScatter ? Counts{per, per * n, per} : Counts{per, per, per * n};
}

struct Run {
  const Options& o;
  std::vector<Gpu>& g;
  Counts c;
  bool in_place;

  int n() const { return static_cast<int>(g.size()); }
  // NCCL's in-place convention: the smaller buffer lies inside the larger at rank * count.
  void* in_ptr(int r) const {
    if (!in_place) return g[r].send;
    return o.op == Op::kAllGather ? offset(g[r].recv, r) : g[r].recv;
  }
  void* out_ptr(int r) const {
    return in_place && o.op == Op::kReduceScatter ? offset(g[r].recv, r) : g[r].recv;
  }
  void* offset(void* p, int r) const {
    return static_cast<char*>(p) + r * c.count * type_size(o.type);
  }
  void collective() const {
    T3V_CHECK(ncclGroupStart());
    for (int r = 0; r < n(); ++r) {
      void *in = in_ptr(r), *out = out_ptr(r);
      if (o.op == Op::kAllReduce) {
        T3V_CHECK(ncclAllReduce(in, out, c.count, o.type, ncclSum, g[r].comm, g[r].stream));
      } else if (o.op == Op::kReduceScatter) {
        T3V_CHECK(ncclReduceScatter(in, out, c.count, o.type, ncclSum, g[r].comm, g[r].stream));
      } else {
        T3V_CHECK(ncclAllGather(in, out, c.count, o.type, g[r].comm, g[r].stream));
      }
    }
    T3V_CHECK(ncclGroupEnd());
  }
  void sync() const {
    for (int r = 0; r < n(); ++r) {
      T3V_CHECK(cudaSetDevice(r));
      T3V_CHECK(cudaStreamSynchronize(g[r].stream));
    }
  }
  // Initialises inputs, runs once and counts wrong output elements over all ranks.
  unsigned long long check() const {
    for (int r = 0; r < n(); ++r) {
      T3V_CHECK(cudaSetDevice(r));
      launch_data(o, in_ptr(r), c.in, r, 0, 0, n(), 0, nullptr, g[r].stream);
      T3V_CHECK(cudaMemsetAsync(g[r].wrong, 0, sizeof(unsigned long long), g[r].stream));
    }
    collective();
    unsigned long long total = 0;
    for (int r = 0; r < n(); ++r) {
      T3V_CHECK(cudaSetDevice(r));
      const size_t base = o.op == Op::kReduceScatter ? r * c.out : 0;
      const size_t per_rank = o.op == Op::kAllGather ? c.count : 0;
      launch_data(o, out_ptr(r), c.out, r, base, 1, n(), per_rank, g[r].wrong, g[r].stream);
      unsigned long long w = 0;
      T3V_CHECK(cudaMemcpyAsync(&w, g[r].wrong, sizeof w, cudaMemcpyDeviceToHost, g[r].stream));
      T3V_CHECK(cudaStreamSynchronize(g[r].stream));
      total += w;
    }
    return total;
  }
  void record(cudaEvent_t* per_rank) const {
    for (int r = 0; r < n(); ++r) {
      T3V_CHECK(cudaSetDevice(r));
      T3V_CHECK(cudaEventRecord(per_rank[r], g[r].stream));
    }
  }
  // Median over iterations of the slowest GPU's event interval, in microseconds.
  double time_us() const {
    const int total = o.warmup + o.iters;
    std::vector<cudaEvent_t> ev(2 * total * n());
    for (int r = 0; r < n(); ++r) {
      T3V_CHECK(cudaSetDevice(r));
      for (int i = 0; i < 2 * total; ++i) T3V_CHECK(cudaEventCreate(&ev[i * n() + r]));
    }
    for (int i = 0; i < total; ++i) {
      record(&ev[(2 * i) * n()]);
      collective();
      record(&ev[(2 * i + 1) * n()]);
    }
    sync();
    std::vector<double> us;
    for (int i = o.warmup; i < total; ++i) {
      double slowest = 0.0;
      for (int r = 0; r < n(); ++r) {
        float ms = 0.0f;
        T3V_CHECK(cudaEventElapsedTime(&ms, ev[(2 * i) * n() + r], ev[(2 * i + 1) * n() + r]));
        slowest = std::max(slowest, 1000.0 * ms);
      }
      us.push_back(slowest);
    }
    for (cudaEvent_t e : ev) T3V_CHECK(cudaEventDestroy(e));
    return t3v::median(us);
  }
};

std::string fmt_time(double us) {
  char b[32];
  std::snprintf(b, sizeof b, us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f", us);
  return b;
}

void sweep(const Options& o, std::vector<Gpu>& g, FILE* f) {
  const int n = static_cast<int>(g.size());
  const double bus = o.op == Op::kAllReduce ? 2.0 * (n - 1) / n : double(n - 1) / n;
  const char* redop = o.op == Op::kAllGather ? "none" : "sum";
  std::fprintf(f, "#\n#%63s%35s\n", "out-of-place", "in-place");
  std::fprintf(
      f,
      "#       size         count      type   redop    root     time   algbw   busbw #wrong"
      "     time   algbw   busbw #wrong\n");
  std::fprintf(
      f,
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       "
      "     (us)  (GB/s)  (GB/s)\n");
  double bus_sum = 0.0;
  int points = 0;
  unsigned long long wrong_total = 0;
  for (uint64_t s = o.min_bytes; s <= o.max_bytes; s *= o.factor) {
    const size_t unit = type_size(o.type) * (o.op == Op::kAllReduce ? 1 : n);
    const size_t bytes = s / unit * unit;
    if (bytes == 0) continue;
    const Counts c = counts(o, bytes / type_size(o.type), n);
    std::fprintf(f, "%12zu  %12zu  %8s  %6s  %6i", bytes, c.count, o.type_name.c_str(), redop, -1);
    for (bool in_place : {false, true}) {
      const Run run{o, g, c, in_place};
      const unsigned long long wrong = o.check ? run.check() : 0;
      const double us = run.time_us();
      const double algbw = bytes / (us * 1e-6) / 1e9;
      std::fprintf(f, "  %7s  %6.2f  %6.2f  %5s", fmt_time(us).c_str(), algbw, algbw * bus,
                   o.check ? std::to_string(wrong).c_str() : "N/A");
      bus_sum += algbw * bus;
      ++points;
      wrong_total += wrong;
    }
    std::fprintf(f, "\n");
    std::fflush(f);
  }
  std::fprintf(f, "# Out of bounds values : %llu %s\n", wrong_total, wrong_total ? "FAILED" : "OK");
  std::fprintf(f, "# Avg bus bandwidth    : %g\n#\n", points ? bus_sum / points : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  int ndev = 0;
  const cudaError_t st = cudaGetDeviceCount(&ndev);
  if (st == cudaErrorNoDevice || st == cudaErrorInsufficientDriver)
    ndev = 0;
  else
    T3V_CHECK(st);
  if (ndev < 2) {
    std::printf("nccl_bench: %d GPU(s) visible; a collective needs at least 2 - nothing to do\n",
                ndev);
    return 0;
  }
  std::vector<Gpu> g(ndev);
  std::vector<ncclComm_t> comms(ndev);
  T3V_CHECK(ncclCommInitAll(comms.data(), ndev, nullptr));
  for (int r = 0; r < ndev; ++r) {
    T3V_CHECK(cudaSetDevice(r));
    g[r].comm = comms[r];
    T3V_CHECK(cudaStreamCreateWithFlags(&g[r].stream, cudaStreamNonBlocking));
    T3V_CHECK(cudaMalloc(&g[r].send, o.max_bytes));
    T3V_CHECK(cudaMalloc(&g[r].recv, o.max_bytes));
    T3V_CHECK(cudaMalloc(&g[r].wrong, sizeof(unsigned long long)));
  }
  t3v::CsvWriter out(o.out);
  FILE* f = out.file();
  int nccl_version = 0;
  T3V_CHECK(ncclGetVersion(&nccl_version));
  out.line(t3v::provenance_line(0, t3v::command_line(argc, argv)));
  std::fprintf(
      f,
      "# nccl=%d, nGpus %d, minBytes %llu, maxBytes %llu, step: %d(factor), warmup iters: %d, "
      "iters: %d, time = median of iters, validation: %d\n#\n# Using devices\n",
      nccl_version, ndev, static_cast<unsigned long long>(o.min_bytes),
      static_cast<unsigned long long>(o.max_bytes), o.factor, o.warmup, o.iters, o.check);
  for (int r = 0; r < ndev; ++r) {
    cudaDeviceProp prop{};
    T3V_CHECK(cudaGetDeviceProperties(&prop, r));
    std::fprintf(f, "#  Rank %2d device %2d [%04x:%02x:%02x.0] %s\n", r, r, prop.pciDomainID,
                 prop.pciBusID, prop.pciDeviceID, prop.name);
  }
  sweep(o, g, f);
  for (int r = 0; r < ndev; ++r) {
    T3V_CHECK(cudaSetDevice(r));
    T3V_CHECK(ncclCommDestroy(g[r].comm));
    T3V_CHECK(cudaStreamDestroy(g[r].stream));
    T3V_CHECK(cudaFree(g[r].send));
    T3V_CHECK(cudaFree(g[r].recv));
    T3V_CHECK(cudaFree(g[r].wrong));
  }
  return 0;
}
