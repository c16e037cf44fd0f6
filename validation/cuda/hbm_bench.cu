// hbm_bench: device-memory bandwidth vs array size for four patterns: read (sum of a), write
// (a = v), copy (b = a) and read-modify-write (a += b); 16-byte (float4) accesses, grid-stride
// loop, full-occupancy grid; sizes 1 MiB .. 4 GiB, x2. gbps = bytes moved / time (GB = 1e9 B),
// counting read 1x, write 1x, copy 2x, rmw 3x the array size. Fidelity: median of >= 20 event-timed
// runs after warm-up; L2 is flushed (untimed read of 2x L2 size) before each run, but arrays below
// ~2x L2 still see L2 effects (dirty lines are written back after the kernel ends). Output:
// pattern,bytes,median_us,gbps.
#include <string>
#include <vector>

#include "bench_common.cuh"

namespace {

constexpr const char* kHelp =
    "usage: hbm_bench [--min-bytes SIZE] [--max-bytes SIZE] [--patterns LIST] [--no-flush]\n"
    "                 [--runs N] [--warmup N] [--device D] [--out FILE.csv] [--help]\n"
    "Device-memory bandwidth vs array size (16-byte accesses, grid-stride, full occupancy).\n"
    "  --min-bytes SIZE  smallest array, e.g. 1M (default 1M); sizes double up to --max-bytes\n"
    "  --max-bytes SIZE  largest array (default 4G; needs 2x this much free device memory)\n"
    "  --patterns LIST   comma list of read,write,copy,rmw (default all four)\n"
    "  --no-flush        do not flush L2 before each timed run\n"
    "  --runs N          timed runs per point, median reported (default 20, minimum 20)\n"
    "  --warmup N        untimed runs first (default 3)\n"
    "  --device D        CUDA device (default 0)\n"
    "  --out FILE        output CSV (default stdout): pattern,bytes,median_us,gbps\n"
    "'bytes' is the size of each array; gbps counts bytes moved\n"
    "(read 1x, write 1x, copy 2x, rmw 3x).\n";

constexpr int kThreads = 256;

__global__ void read_kernel(const float4* __restrict__ a, size_t n, float sentinel, float* sink) {
  float acc = 0.0f;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const float4 x = a[i];
    acc += (x.x + x.y) + (x.z + x.w);
  }
  if (acc == sentinel) *sink = acc;  // never true; keeps the loads alive
}

__global__ void write_kernel(float4* __restrict__ a, size_t n, float value) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    a[i] = make_float4(value, -value, value, -value);
  }
}

__global__ void copy_kernel(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    b[i] = a[i];
  }
}

__global__ void rmw_kernel(float4* __restrict__ a, const float4* __restrict__ b, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const float4 x = a[i], y = b[i];
    a[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

struct Options {
  uint64_t min_bytes = 1ull << 20, max_bytes = 4ull << 30;
  std::vector<std::string> patterns{"read", "write", "copy", "rmw"};
  bool flush = true;
  int runs = 20, warmup = 3, device = 0;
  std::string out;
};

std::vector<std::string> parse_patterns(const char* prog, const std::string& list) {
  std::vector<std::string> p;
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    const std::string name = list.substr(pos, comma - pos);
    if (name != "read" && name != "write" && name != "copy" && name != "rmw") {
      t3v::usage_error(prog, "unknown pattern '" + name + "'");
    }
    p.push_back(name);
    pos = comma + 1;
  }
  return p;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      std::exit(0);
    } else if (a == "--min-bytes") {
      o.min_bytes = t3v::parse_size(argv[0], t3v::option_value(argc, argv, i));
    } else if (a == "--max-bytes") {
      o.max_bytes = t3v::parse_size(argv[0], t3v::option_value(argc, argv, i));
    } else if (a == "--patterns") {
      o.patterns = parse_patterns(argv[0], t3v::option_value(argc, argv, i));
    } else if (a == "--no-flush") {
      o.flush = false;
    } else if (!t3v::timing_option(a, argc, argv, i, o)) {
      t3v::usage_error(argv[0], "unknown option '" + a + "'");
    }
  }
  if (o.min_bytes < 16 || o.min_bytes % 16 || o.min_bytes > o.max_bytes) {
    t3v::usage_error(argv[0], "need 16 <= --min-bytes <= --max-bytes, multiples of 16");
  }
  return o;
}

// Grid that fills every SM at the kernel's occupancy limit.
template <typename Kernel>
int full_grid(Kernel kernel, int device) {
  int per_sm = 0;
  T3V_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
  return std::max(1, per_sm) * t3v::device_attribute(cudaDevAttrMultiProcessorCount, device);
}

struct Buffers {
  float4 *a = nullptr, *b = nullptr, *flush = nullptr;
  float* sink = nullptr;
  size_t flush_n = 0;
};

// Times one pattern on arrays of `bytes`; returns the median in microseconds.
double time_pattern(const Options& o, const std::string& p, const Buffers& d, uint64_t bytes,
                    cudaStream_t s) {
  const size_t n = bytes / sizeof(float4);
  const int gr = full_grid(read_kernel, o.device), gw = full_grid(write_kernel, o.device);
  const int gc = full_grid(copy_kernel, o.device), gm = full_grid(rmw_kernel, o.device);
  const float sentinel = -1.0e30f;
  auto flush = [&] {
    if (!o.flush) return;
    read_kernel<<<gr, kThreads, 0, s>>>(d.flush, d.flush_n, sentinel, d.sink);
    T3V_CHECK_LAUNCH();
  };
  auto body = [&] {
    if (p == "read") read_kernel<<<gr, kThreads, 0, s>>>(d.a, n, sentinel, d.sink);
    if (p == "write") write_kernel<<<gw, kThreads, 0, s>>>(d.a, n, 0.75f);
    if (p == "copy") copy_kernel<<<gc, kThreads, 0, s>>>(d.a, d.b, n);
    if (p == "rmw") rmw_kernel<<<gm, kThreads, 0, s>>>(d.a, d.b, n);
    T3V_CHECK_LAUNCH();
  };
  return t3v::median_us(s, o.warmup, o.runs, flush, body);
}

double moved_factor(const std::string& p) { return p == "copy" ? 2.0 : p == "rmw" ? 3.0 : 1.0; }

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  T3V_CHECK(cudaSetDevice(o.device));
  Buffers d;
  const uint64_t l2 = t3v::device_attribute(cudaDevAttrL2CacheSize, o.device);
  d.flush_n = o.flush ? (2 * l2 + 15) / 16 : 0;
  size_t free_bytes = 0, total_bytes = 0;
  T3V_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (2 * o.max_bytes + 16 * d.flush_n + (64u << 20) > free_bytes) {
    std::fprintf(stderr, "hbm_bench: --max-bytes %llu needs %llu MiB, only %zu MiB free\n",
                 static_cast<unsigned long long>(o.max_bytes),
                 static_cast<unsigned long long>((2 * o.max_bytes) >> 20), free_bytes >> 20);
    return 1;
  }
  T3V_CHECK(cudaMalloc(&d.a, o.max_bytes));
  T3V_CHECK(cudaMalloc(&d.b, o.max_bytes));
  T3V_CHECK(cudaMalloc(&d.sink, sizeof(float)));
  if (o.flush) T3V_CHECK(cudaMalloc(&d.flush, 16 * d.flush_n));
  cudaStream_t s;
  T3V_CHECK(cudaStreamCreate(&s));
  t3v::fill_random(reinterpret_cast<float*>(d.b), o.max_bytes / 4, 12, s);
  if (o.flush) t3v::fill_random(reinterpret_cast<float*>(d.flush), 4 * d.flush_n, 13, s);
  T3V_CHECK(cudaStreamSynchronize(s));

  t3v::CsvWriter out(o.out);
  out.line(t3v::provenance_line(o.device, t3v::command_line(argc, argv)));
  out.line("# runs=" + std::to_string(o.runs) + ", warmup=" + std::to_string(o.warmup) +
           ", l2_bytes=" + std::to_string(l2) + ", l2_flush=" + (o.flush ? "yes" : "no") +
           ", bytes=size of each array, gbps=moved bytes (read 1x write 1x copy 2x rmw 3x)/time");
  out.line("pattern,bytes,median_us,gbps");
  for (const std::string& p : o.patterns) {
    t3v::fill_random(reinterpret_cast<float*>(d.a), o.max_bytes / 4, 11, s);  // undo "write"
    for (uint64_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
      const double us = time_pattern(o, p, d, bytes, s);
      const double gbps = moved_factor(p) * static_cast<double>(bytes) / (us * 1e-6) / 1e9;
      char row[128];
      std::snprintf(row, sizeof row, "%s,%llu,%.2f,%.1f", p.c_str(),
                    static_cast<unsigned long long>(bytes), us, gbps);
      out.line(row);
    }
  }
  T3V_CHECK(cudaStreamDestroy(s));
  for (void* ptr : {static_cast<void*>(d.a), static_cast<void*>(d.b), static_cast<void*>(d.flush),
                    static_cast<void*>(d.sink)}) {
    T3V_CHECK(cudaFree(ptr));
  }
  return 0;
}
