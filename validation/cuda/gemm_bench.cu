// gemm_bench: FP16 and BF16 GEMM throughput (cublasGemmEx, FP32 accumulate) for the shapes of a
// CSV file (--shapes, e.g. shapes/zoo_shapes.csv) and/or a built-in grid (--grid: M, N, K in
// {256, 1024, 4096, 16384}). Row-major C[M x N] = A[M x K] . B[K x N]; 2*M*N*K FLOP; TFLOP/s =
// 1e12 FLOP/s. The GEMM setup, launch and timing are cublas_util.cuh's, shared with
// contention_bench. Fidelity: per point an idle wait (--idle-ms), then the median of >= 20
// event-timed runs after warm-up, non-zero random inputs, one GPU, whatever clocks the GPU runs at
// (not locked; the SM clock measured after each run is reported in '#' lines at the end, per row in
// row order, since the validation library reads exactly these columns). Output:
// dtype,m,n,k,median_us,tflops.
#include <array>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "cublas_util.cuh"

namespace {

using Shape = std::array<int, 3>;  // m, n, k

constexpr const char* kHelp =
    "usage: gemm_bench [--shapes FILE.csv] [--grid] [--dtype fp16|bf16|both] [--runs N]\n"
    "                  [--warmup N] [--idle-ms MS] [--device D] [--out FILE.csv] [--help]\n"
    "Times row-major C[MxN] = A[MxK].B[KxN] with cublasGemmEx (FP32 accumulate).\n"
    "  --shapes FILE  CSV with columns m,n,k (header row required; '#' lines skipped;\n"
    "                 duplicate shapes are timed once), e.g. shapes/zoo_shapes.csv\n"
    "  --grid         add the grid M,N,K in {256,1024,4096,16384} (64 shapes)\n"
    "  --dtype T      fp16, bf16 or both (default both)\n"
    "  --runs N       timed runs per shape, median reported (default 20, minimum 20)\n"
    "  --warmup N     untimed runs first (default 5)\n"
    "  --idle-ms MS   idle time before each shape, so the SM clock recovers (default 100)\n"
    "  --device D     CUDA device (default 0)\n"
    "  --out FILE     output CSV (default stdout): dtype,m,n,k,median_us,tflops\n";

struct Options {
  std::string shapes_file, out;
  bool grid = false;
  std::vector<t3v::DType> dtypes{t3v::DType::kFp16, t3v::DType::kBf16};
  int runs = t3v::kMinRuns, warmup = t3v::kGemmWarmup, idle_ms = t3v::kGemmIdleMs, device = 0;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      std::exit(0);
    } else if (a == "--shapes") {
      o.shapes_file = t3v::option_value(argc, argv, i);
    } else if (a == "--grid") {
      o.grid = true;
    } else if (a == "--dtype") {
      const std::string d = t3v::option_value(argc, argv, i);
      if (d != "fp16" && d != "bf16" && d != "both") {
        t3v::usage_error(argv[0], "bad --dtype '" + d + "'");
      }
      if (d == "fp16") o.dtypes = {t3v::DType::kFp16};
      if (d == "bf16") o.dtypes = {t3v::DType::kBf16};
    } else if (!t3v::gemm_timing_option(a, argc, argv, i, o)) {
      t3v::usage_error(argv[0], "unknown option '" + a + "'");
    }
  }
  if (o.shapes_file.empty() && !o.grid)
    t3v::usage_error(argv[0], "give --shapes FILE and/or --grid");
  return o;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) cells.push_back(cell);
  return cells;
}

[[noreturn]] void shapes_error(const std::string& file, int line_no, const std::string& msg) {
  std::fprintf(stderr, "%s:%d: %s\n", file.c_str(), line_no, msg.c_str());
  std::exit(2);
}

// Reads the m, n, k columns (found by header name) of a CSV file.
std::vector<Shape> read_shapes(const std::string& file) {
  std::ifstream in(file);
  if (!in) shapes_error(file, 0, "cannot open shapes file");
  std::vector<Shape> shapes;
  std::array<int, 3> col{-1, -1, -1};
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> cells = split_csv(line);
    if (col[0] < 0) {  // header row
      for (int c = 0; c < static_cast<int>(cells.size()); ++c) {
        if (cells[c] == "m") col[0] = c;
        if (cells[c] == "n") col[1] = c;
        if (cells[c] == "k") col[2] = c;
      }
      if (col[0] < 0 || col[1] < 0 || col[2] < 0) shapes_error(file, line_no, "header needs m,n,k");
      continue;
    }
    Shape s{};
    for (int d = 0; d < 3; ++d) {
      if (col[d] >= static_cast<int>(cells.size())) shapes_error(file, line_no, "missing column");
      char* end = nullptr;
      const long v = std::strtol(cells[col[d]].c_str(), &end, 10);
      if (*end || v <= 0 || v > (1L << 30)) shapes_error(file, line_no, "bad dimension");
      s[d] = static_cast<int>(v);
    }
    shapes.push_back(s);
  }
  return shapes;
}

std::vector<Shape> all_shapes(const Options& o) {
  std::vector<Shape> raw;
  if (!o.shapes_file.empty()) raw = read_shapes(o.shapes_file);
  if (o.grid) {
    constexpr std::array<int, 4> kGrid{256, 1024, 4096, 16384};
    for (int m : kGrid)
      for (int n : kGrid)
        for (int k : kGrid) raw.push_back({m, n, k});
  }
  std::set<Shape> seen;
  std::vector<Shape> shapes;
  for (const Shape& s : raw) {
    if (seen.insert(s).second) shapes.push_back(s);
  }
  return shapes;
}

// Device operands, each sized for the largest shape and filled with random data per dtype.
struct Operands {
  void *a = nullptr, *b = nullptr, *c = nullptr;
  size_t a_elems = 0, b_elems = 0, c_elems = 0;
};

Operands allocate(const std::vector<Shape>& shapes) {
  Operands d;
  for (const Shape& s : shapes) {
    d.a_elems = std::max(d.a_elems, size_t(s[0]) * s[2]);
    d.b_elems = std::max(d.b_elems, size_t(s[2]) * s[1]);
    d.c_elems = std::max(d.c_elems, size_t(s[0]) * s[1]);
  }
  size_t free_bytes = 0, total_bytes = 0;
  T3V_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t need = 2 * (d.a_elems + d.b_elems + d.c_elems);
  if (need + (64u << 20) > free_bytes) {
    std::fprintf(stderr, "gemm_bench: largest shapes need %zu MiB, only %zu MiB free\n", need >> 20,
                 free_bytes >> 20);
    std::exit(1);
  }
  T3V_CHECK(cudaMalloc(&d.a, 2 * d.a_elems));
  T3V_CHECK(cudaMalloc(&d.b, 2 * d.b_elems));
  T3V_CHECK(cudaMalloc(&d.c, 2 * d.c_elems));
  return d;
}

void time_all(const Options& o, const std::vector<Shape>& shapes, const Operands& d,
              cudaStream_t stream, const std::string& command) {
  t3v::Blas blas(stream);
  t3v::SmClock clock(o.warmup + o.runs);
  t3v::GemmTimer timer(blas, clock);
  t3v::CsvWriter out(o.out);
  out.line(t3v::provenance_line(o.device, command));
  out.line("# cublas=" + blas.version() + ", runs=" + std::to_string(o.runs) +
           ", warmup=" + std::to_string(o.warmup) + ", idle_ms=" + std::to_string(o.idle_ms) +
           ", api=cublasGemmEx compute=32F row-major");
  out.line(t3v::Blas::setup_line());
  out.line(t3v::gemm_timing_line(o.warmup, o.runs, o.idle_ms));
  out.line(
      "# operands: one buffer per operand, sized for the largest shape; a shape uses its "
      "packed leading part (contention_bench allocates exactly, same values: the fill "
      "depends on the element index only)");
  out.line("dtype,m,n,k,median_us,tflops");
  std::vector<double> row_mhz;
  std::string lowest;  // the row with the lowest SM clock, lowest_mhz
  double lowest_mhz = 0.0;
  for (t3v::DType t : o.dtypes) {
    t3v::fill_random(t, d.a, d.a_elems, 1, stream);
    t3v::fill_random(t, d.b, d.b_elems, 2, stream);
    T3V_CHECK(cudaStreamSynchronize(stream));
    for (const Shape& s : shapes) {
      const t3v::Gemm g{t, s[0], s[1], s[2], d.a, d.b, d.c};
      const t3v::PointTime p = timer.point(g, o.warmup, o.runs, o.idle_ms);
      const double tflops = 2.0 * s[0] * s[1] * s[2] / (p.us * 1e-6) / 1e12;
      char row[160];
      std::snprintf(row, sizeof row, "%s,%d,%d,%d,%.2f,%.2f", t3v::dtype_name(t), s[0], s[1], s[2],
                    p.us, tflops);
      out.line(row);
      if (row_mhz.empty() || p.sm_mhz < lowest_mhz) {
        lowest = row;
        lowest_mhz = p.sm_mhz;
      }
      row_mhz.push_back(p.sm_mhz);
    }
  }
  if (row_mhz.empty()) return;
  // The SM clock is no column: studies/validation reads gemm_bench CSVs by their exact header.
  std::string list;
  for (double mhz : row_mhz) list += (list.empty() ? "" : ",") + std::to_string(std::lround(mhz));
  char summary[320];
  std::snprintf(summary, sizeof summary,
                "# sm_mhz over the rows: min %.0f (row %s), median %.0f, max %.0f", lowest_mhz,
                lowest.c_str(), t3v::median(row_mhz),
                *std::max_element(row_mhz.begin(), row_mhz.end()));
  out.line(summary);
  out.line("# sm_mhz per row, in row order (median of the probes after its timed runs): " + list);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const std::vector<Shape> shapes = all_shapes(o);
  T3V_CHECK(cudaSetDevice(o.device));
  const Operands d = allocate(shapes);
  cudaStream_t stream = t3v::create_gemm_stream();
  time_all(o, shapes, d, stream, t3v::command_line(argc, argv));
  T3V_CHECK(cudaStreamDestroy(stream));
  T3V_CHECK(cudaFree(d.a));
  T3V_CHECK(cudaFree(d.b));
  T3V_CHECK(cudaFree(d.c));
  return 0;
}
