// Shared pieces of the t3sim CUDA validation programs: status checks, random input fill, a
// CUDA-event timer, an idle wait and an SM-clock probe, command-line helpers and a CSV writer with
// a provenance header.
// Fidelity: each timed run is bracketed by its own pair of CUDA events (~0.5 us resolution); the
// reported value is the median of >= 20 runs after warm-up. Inputs are non-zero random values
// (|x| in [0.25, 1)), never zeros, so no data-dependent fast path can flatter a result. The GPU's
// clocks are not locked: the SM clock the power controller chose is measured (SmClock) instead.
// Contract: every CUDA call goes through T3V_CHECK, which exits with file:line and the message.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace t3v {

inline void check_status(cudaError_t status, const char* expr, const char* file, int line) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, expr, cudaGetErrorString(status),
               cudaGetErrorName(status));
  std::exit(1);
}

// Other libraries (cuBLAS, NCCL) add check_status overloads before their first T3V_CHECK use.
#define T3V_CHECK(expr) ::t3v::check_status((expr), #expr, __FILE__, __LINE__)
// Checks a kernel launch (configuration errors) right after the <<<>>> statement.
#define T3V_CHECK_LAUNCH() T3V_CHECK(cudaGetLastError())

constexpr int kMinRuns = 20;

// ---- random, non-zero inputs
// ----------------------------------------------------------------------

__host__ __device__ inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform magnitude in [0.25, 1) with a random sign: never zero, no overflow in FP16 dot products.
__device__ inline float random_value(uint64_t seed, uint64_t i) {
  const uint64_t r = splitmix64(seed ^ splitmix64(i));
  const float mag = 0.25f + 0.75f * static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
  return (r & 1u) ? -mag : mag;
}

template <typename T>
__global__ void fill_random_kernel(T* data, size_t n, uint64_t seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    data[i] = static_cast<T>(random_value(seed, i));
  }
}

template <typename T>
void fill_random(T* data, size_t n, uint64_t seed, cudaStream_t stream = nullptr) {
  fill_random_kernel<T><<<1024, 256, 0, stream>>>(data, n, seed);
  T3V_CHECK_LAUNCH();
}

// ---- timing -------------------------------------------------------------------------------------

inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return (v.size() % 2) ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// Runs `prepare` (untimed) and then `body` (timed with events on `stream`) warmup + runs times;
// returns the median of the timed runs in microseconds.
template <typename Prepare, typename Body>
double median_us(cudaStream_t stream, int warmup, int runs, Prepare prepare, Body body) {
  cudaEvent_t start, stop;
  T3V_CHECK(cudaEventCreate(&start));
  T3V_CHECK(cudaEventCreate(&stop));
  std::vector<double> us;
  for (int i = 0; i < warmup + runs; ++i) {
    prepare();
    T3V_CHECK(cudaEventRecord(start, stream));
    body();
    T3V_CHECK(cudaEventRecord(stop, stream));
    T3V_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    T3V_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (i >= warmup) us.push_back(1000.0 * ms);
  }
  T3V_CHECK(cudaEventDestroy(start));
  T3V_CHECK(cudaEventDestroy(stop));
  return median(us);
}

template <typename Body>
double median_us(cudaStream_t stream, int warmup, int runs, Body body) {
  return median_us(
      stream, warmup, runs, [] {}, body);
}

// Time between two completed events, in microseconds.
inline double elapsed_us(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0.0f;
  T3V_CHECK(cudaEventElapsedTime(&ms, from, to));
  return 1000.0 * ms;
}

// ---- GPU state: idle wait and SM clock ----------------------------------------------------------

// Waits for the device to finish its work and then leaves it idle for `idle_ms`, so that a point
// does not start in the power/clock state the load before it left (under sustained load the power
// controller lowers the SM clock within tens of ms, and is expected to raise it again when idle).
inline void settle(int idle_ms) {
  T3V_CHECK(cudaDeviceSynchronize());
  if (idle_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(idle_ms));
}

__device__ inline unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread: SM cycles (clock64) over >= span_ns of %globaltimer (ns), both ends taken right
// after a globaltimer tick (it may advance in ~1 us steps), so cycles / ns is the SM clock in GHz,
// off by a few polling iterations (tens of cycles) over the span. out[0] = cycles, out[1] = ns.
__global__ void sm_clock_kernel(unsigned long long span_ns, unsigned long long* out) {
  const unsigned long long t0 = global_ns();
  unsigned long long t1 = t0;
  while (t1 == t0) t1 = global_ns();
  const long long c1 = clock64();
  unsigned long long t2 = t1;
  while (t2 < t1 + span_ns) t2 = global_ns();
  const long long c2 = clock64();
  out[0] = static_cast<unsigned long long>(c2 - c1);
  out[1] = t2 - t1;
}

// The effective SM clock, read by a 1-thread probe kernel (kSpanUs long) that a program enqueues
// right after a timed run's stop event, outside the timed interval; the power controller changes
// the clock over ms, so the probe sees the clock the run ended with. Needs no NVML (not every
// toolkit has it). record() does not synchronise; results stay on the device until mhz().
class SmClock {
 public:
  static constexpr int kSpanUs = 20;

  explicit SmClock(int capacity) : capacity_(capacity) {
    T3V_CHECK(cudaMalloc(&slots_, 2 * sizeof(unsigned long long) * capacity_));
  }
  ~SmClock() { T3V_CHECK(cudaFree(slots_)); }
  SmClock(const SmClock&) = delete;
  SmClock& operator=(const SmClock&) = delete;

  // Forgets the probes recorded so far (their slots are reused).
  void clear() { used_ = 0; }
  // Enqueues one probe on `stream` and returns its slot (0, 1, ... since clear()).
  int record(cudaStream_t stream) {
    if (used_ >= capacity_) {
      std::fprintf(stderr, "SmClock: more than %d probes since clear()\n", capacity_);
      std::exit(1);
    }
    sm_clock_kernel<<<1, 1, 0, stream>>>(1000ull * kSpanUs, slots_ + 2 * used_);
    T3V_CHECK_LAUNCH();
    return used_++;
  }
  // Waits for the device; returns the SM clock in MHz of every probe since clear(), by slot.
  std::vector<double> mhz() const {
    std::vector<unsigned long long> raw(2 * static_cast<size_t>(used_));
    T3V_CHECK(cudaDeviceSynchronize());
    if (used_ > 0) {
      T3V_CHECK(cudaMemcpy(raw.data(), slots_, raw.size() * sizeof(unsigned long long),
                           cudaMemcpyDeviceToHost));
    }
    std::vector<double> out(used_);
    for (int i = 0; i < used_; ++i) {
      out[i] = raw[2 * i + 1] ? 1000.0 * static_cast<double>(raw[2 * i]) / raw[2 * i + 1] : 0.0;
    }
    return out;
  }

 private:
  int capacity_ = 0, used_ = 0;
  unsigned long long* slots_ = nullptr;
};

// ---- command line -------------------------------------------------------------------------------

inline std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    const bool quote = std::strpbrk(argv[i], " \t,\"") != nullptr;
    s += quote ? "'" + std::string(argv[i]) + "'" : std::string(argv[i]);
  }
  return s;
}

[[noreturn]] inline void usage_error(const char* prog, const std::string& msg) {
  std::fprintf(stderr, "%s: %s (try --help)\n", prog, msg.c_str());
  std::exit(2);
}

// Returns argv[i + 1] for option argv[i], advancing i; a missing value is a usage error.
inline const char* option_value(int argc, char** argv, int& i) {
  if (i + 1 >= argc) usage_error(argv[0], std::string("option '") + argv[i] + "' needs a value");
  return argv[++i];
}

// Parses "4096", "32K", "16M", "4G" (binary multiples) into bytes or counts.
inline uint64_t parse_size(const char* prog, const char* text) {
  if (text[0] < '0' || text[0] > '9') usage_error(prog, std::string("bad size '") + text + "'");
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  uint64_t mult = 1;
  switch (end && *end ? (*end | 0x20) : 0) {
    case 0:
      break;
    case 'k':
      mult = 1ull << 10;
      break;
    case 'm':
      mult = 1ull << 20;
      break;
    case 'g':
      mult = 1ull << 30;
      break;
    default:
      usage_error(prog, std::string("bad size '") + text + "'");
  }
  if (end == text || (*end && end[1] != '\0'))
    usage_error(prog, std::string("bad size '") + text + "'");
  return static_cast<uint64_t>(v) * mult;
}

inline int parse_int(const char* prog, const char* text, int min_value) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end || v < min_value || v > 1000000000L) {
    usage_error(
        prog, std::string("bad number '") + text + "' (minimum " + std::to_string(min_value) + ")");
  }
  return static_cast<int>(v);
}

// ---- CSV output with a provenance header --------------------------------------------------------

// The options every timing program shares: --runs (>= kMinRuns), --warmup, --device, --out.
// Sets the matching field of `o` and returns true, or returns false for any other option.
template <class Options>
bool timing_option(const std::string& a, int argc, char** argv, int& i, Options& o) {
  if (a == "--runs") {
    o.runs = parse_int(argv[0], option_value(argc, argv, i), kMinRuns);
  } else if (a == "--warmup") {
    o.warmup = parse_int(argv[0], option_value(argc, argv, i), 1);
  } else if (a == "--device") {
    o.device = parse_int(argv[0], option_value(argc, argv, i), 0);
  } else if (a == "--out") {
    o.out = option_value(argc, argv, i);
  } else {
    return false;
  }
  return true;
}

inline int device_attribute(cudaDeviceAttr attr, int device) {
  int v = 0;
  T3V_CHECK(cudaDeviceGetAttribute(&v, attr, device));
  return v;
}

// One '#' line: GPU name, driver and runtime versions, peak SM / memory clocks, exact command line.
inline std::string provenance_line(int device, const std::string& command) {
  cudaDeviceProp prop{};
  T3V_CHECK(cudaGetDeviceProperties(&prop, device));
  int driver = 0, runtime = 0;
  T3V_CHECK(cudaDriverGetVersion(&driver));
  T3V_CHECK(cudaRuntimeGetVersion(&runtime));
  const int sm_khz = device_attribute(cudaDevAttrClockRate, device);
  const int mem_khz = device_attribute(cudaDevAttrMemoryClockRate, device);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "# gpu=%s, driver=%d.%d, cuda=%d.%d, sm_clock_mhz=%d, mem_clock_mhz=%d, sms=%d, ",
                prop.name, driver / 1000, (driver % 1000) / 10, runtime / 1000,
                (runtime % 1000) / 10, sm_khz / 1000, mem_khz / 1000, prop.multiProcessorCount);
  return std::string(buf) + "command=" + command;
}

class CsvWriter {
 public:
  // Opens `path` ("" or "-" = stdout); exits with a message if it cannot.
  explicit CsvWriter(const std::string& path) {
    if (path.empty() || path == "-") {
      file_ = stdout;
      return;
    }
    file_ = std::fopen(path.c_str(), "w");
    if (!file_) {
      std::fprintf(stderr, "cannot open '%s' for writing: %s\n", path.c_str(),
                   std::strerror(errno));
      std::exit(1);
    }
    owned_ = true;
  }
  ~CsvWriter() {
    if (owned_) std::fclose(file_);
  }
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  // Writes a line as is (comment lines start with '#'), flushed so partial results survive.
  void line(const std::string& text) {
    std::fprintf(file_, "%s\n", text.c_str());
    std::fflush(file_);
  }
  FILE* file() { return file_; }

 private:
  FILE* file_ = nullptr;
  bool owned_ = false;
};

}  // namespace t3v
