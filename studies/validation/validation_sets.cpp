#include "studies/validation/validation_sets.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "models/collectives/collective.h"
#include "models/system/gemm_limits.h"
#include "models/system/system.h"
#include "sim/errors.h"
#include "studies/parallel.h"
#include "studies/probes.h"

namespace t3sim::validation {
namespace {

// A CSV file: '#' comment lines and blank lines skipped; the first other line is the header.
struct Csv {
  std::string file;
  std::string header;
  struct Row {
    int line = 0;
    std::vector<std::string> fields;
  };
  std::vector<Row> rows;

  [[noreturn]] void fail(int line, const std::string& message) const {
    throw ConfigError(file, "line " + std::to_string(line), message);
  }
  // A malformed data row: the message plus the fix.
  [[noreturn]] void fail_row(int line, const std::string& message) const {
    fail(line, message + " (fix the row or delete it)");
  }
};

Csv read_csv(const std::filesystem::path& path, const std::vector<std::string>& headers) {
  Csv csv;
  csv.file = path.string();
  std::ifstream in(path);
  if (!in) throw ConfigError(csv.file, "", "cannot open the CSV file");
  std::string text;
  int line = 0;
  size_t columns = 0;
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty() || text[0] == '#') continue;
    if (csv.header.empty()) {
      if (std::find(headers.begin(), headers.end(), text) == headers.end()) {
        std::string want;
        for (const auto& h : headers) want += (want.empty() ? "'" : " or '") + h + "'";
        // The line itself is not shown: the file may be anything (a private file named by
        // mistake), and a header is recognised or not.
        csv.fail(line, "unknown header: the first line that is not a comment is none of " + want +
                           " (is it the right file?)");
      }
      csv.header = text;
      columns = static_cast<size_t>(std::count(text.begin(), text.end(), ',')) + 1;
      continue;
    }
    Csv::Row row;
    row.line = line;
    // Fields split at commas outside double quotes (a quoted field may hold commas).
    std::string field;
    bool quoted = false;
    for (const char ch : text) {
      if (ch == '"') {
        quoted = !quoted;
      } else if (ch == ',' && !quoted) {
        row.fields.push_back(field);
        field.clear();
      } else {
        field += ch;
      }
    }
    row.fields.push_back(field);
    if (row.fields.size() != columns) {
      csv.fail_row(line, "expected " + std::to_string(columns) + " fields, got " +
                             std::to_string(row.fields.size()));
    }
    csv.rows.push_back(std::move(row));
  }
  if (csv.header.empty()) csv.fail(line, "no header line");
  return csv;
}

uint64_t to_u64(const Csv& csv, const Csv::Row& row, size_t col, const char* what) {
  const std::string& s = row.fields[col];
  const bool digits = !s.empty() && s.size() <= 19 &&
                      std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits)
    csv.fail_row(row.line, std::string(what) + " '" + s + "' is not a non-negative integer");
  return std::stoull(s);
}

uint64_t to_dim(const Csv& csv, const Csv::Row& row, size_t col, const char* what) {
  const uint64_t v = to_u64(csv, row, col, what);
  if (v == 0 || v > (uint64_t{1} << 22)) {
    csv.fail_row(row.line, std::string(what) + " " + std::to_string(v) + " is outside 1..4194304");
  }
  return v;
}

double to_real(const Csv& csv, const Csv::Row& row, size_t col, const char* what) {
  const std::string& s = row.fields[col];
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || !std::isfinite(v) || v < 0) {
    csv.fail_row(row.line, std::string(what) + " '" + s + "' is not a non-negative number");
  }
  return v;
}

}  // namespace

gpu::Precision precision_of(std::string_view dtype) {
  if (dtype == "tf32") return gpu::Precision::kTf32;
  if (dtype == "bf16") return gpu::Precision::kBf16;
  return gpu::Precision::kFp16;
}

gpu::Precision precision_of(const GemmPoint& p) { return precision_of(p.dtype); }

std::vector<GemmPoint> load_gemm_csv(const std::filesystem::path& file, bool fp32_column) {
  const std::string xla = "b,m,n,k,bf16_tflops,fp32_tflops";
  const Csv csv = read_csv(file, {xla, "dtype,m,n,k,median_us,tflops"});
  std::vector<GemmPoint> out;
  for (const auto& r : csv.rows) {
    GemmPoint p;
    p.line = r.line;
    if (csv.header == xla) {
      p.batch = to_dim(csv, r, 0, "b");
      p.tflops =
          fp32_column ? to_real(csv, r, 5, "fp32_tflops") : to_real(csv, r, 4, "bf16_tflops");
      if (fp32_column) p.dtype = "tf32";
    } else {
      p.dtype = r.fields[0];
      if (p.dtype != "bf16" && p.dtype != "fp16")
        csv.fail(r.line, "dtype '" + p.dtype + "' is not bf16 or fp16");
      p.tflops = to_real(csv, r, 5, "tflops");
    }
    p.m = to_dim(csv, r, 1, "m");
    p.n = to_dim(csv, r, 2, "n");
    p.k = to_dim(csv, r, 3, "k");
    if (p.m * p.batch > (uint64_t{1} << 22)) csv.fail(r.line, "b x m exceeds 4194304");
    if (p.tflops <= 0) csv.fail(r.line, "measured TFLOP/s must be > 0");
    out.push_back(p);
  }
  return out;
}

std::vector<MamfPoint> load_mamf_csv(const std::filesystem::path& file) {
  const Csv csv = read_csv(
      file, {"accelerator,mamf_tflops,spec_tflops,efficiency_pct,best_m,best_n,best_k,torch"});
  std::vector<MamfPoint> out;
  for (const auto& r : csv.rows) {
    MamfPoint p;
    p.line = r.line;
    p.accelerator = r.fields[0];
    p.tflops = to_real(csv, r, 1, "mamf_tflops");
    p.spec_tflops = to_real(csv, r, 2, "spec_tflops");
    p.m = to_dim(csv, r, 4, "best_m");
    p.n = to_dim(csv, r, 5, "best_n");
    p.k = to_dim(csv, r, 6, "best_k");
    if (p.accelerator.empty() || p.tflops <= 0)
      csv.fail(r.line, "needs an accelerator and TFLOP/s > 0");
    out.push_back(p);
  }
  return out;
}

std::vector<CollectivePoint> load_collective_csv(const std::filesystem::path& file) {
  const Csv csv = read_csv(file, {"size_bytes,time_us,algbw_gbps,busbw_gbps"});
  std::vector<CollectivePoint> out;
  for (const auto& r : csv.rows) {
    CollectivePoint p;
    p.line = r.line;
    p.size_bytes = to_u64(csv, r, 0, "size_bytes");
    p.time_us = to_real(csv, r, 1, "time_us");
    p.algbw_gbps = to_real(csv, r, 2, "algbw_gbps");
    p.busbw_gbps = to_real(csv, r, 3, "busbw_gbps");
    if (p.size_bytes == 0 || p.time_us <= 0) csv.fail(r.line, "size_bytes and time_us must be > 0");
    out.push_back(p);
  }
  return out;
}

std::vector<HbmPoint> load_hbm_csv(const std::filesystem::path& file) {
  const Csv csv = read_csv(file, {"pattern,bytes,median_us,gbps"});
  std::vector<HbmPoint> out;
  for (const auto& r : csv.rows) {
    HbmPoint p;
    p.line = r.line;
    p.pattern = r.fields[0];
    if (p.pattern != "read" && p.pattern != "write" && p.pattern != "copy" && p.pattern != "rmw") {
      csv.fail(r.line, "pattern '" + p.pattern + "' is not read, write, copy or rmw");
    }
    p.bytes = to_u64(csv, r, 1, "bytes");
    p.median_us = to_real(csv, r, 2, "median_us");
    p.gbps = to_real(csv, r, 3, "gbps");
    if (p.bytes == 0 || p.bytes > (uint64_t{64} << 30) || p.gbps <= 0) {
      csv.fail(r.line, "bytes must be in 1 B..64 GiB and gbps > 0");
    }
    out.push_back(p);
  }
  return out;
}

namespace {
constexpr const char* kContentionHeader =
    "red_blocks,red_sms,m,n,k,dtype,red_bytes,gemm_alone_us,red_alone_us,gemm_together_us,"
    "red_together_us,together_us,gemm_slowdown,red_slowdown,speedup,ideal_speedup";
}  // namespace

std::vector<SharingPoint> load_contention_csv(const std::filesystem::path& file) {
  const std::string clocks = ",gemm_alone_sm_mhz,red_alone_sm_mhz,together_sm_mhz";
  const Csv csv = read_csv(file, {kContentionHeader, std::string(kContentionHeader) + clocks});
  // With the clock columns the program interleaved alone and together runs (one clock state), so
  // each row's own gemm_slowdown holds; before, alone was timed first on a cool GPU.
  const bool interleaved = csv.header.find(clocks) != std::string::npos;
  std::vector<SharingPoint> out;
  double base_us = 0;  // the row without a reduction kernel: its together time
  for (const auto& r : csv.rows) {
    SharingPoint p;
    p.line = r.line;
    p.sms = static_cast<uint32_t>(to_u64(csv, r, 1, "red_sms"));
    p.m = to_u64(csv, r, 2, "m");
    p.n = to_u64(csv, r, 3, "n");
    p.k = to_u64(csv, r, 4, "k");
    p.dtype = r.fields[5];
    const double together = to_real(csv, r, 9, "gemm_together_us");
    p.hold_us = to_real(csv, r, 10, "red_together_us");
    if (p.dtype != "fp16" && p.dtype != "bf16") csv.fail(r.line, "dtype must be fp16 or bf16");
    if (p.m == 0 || p.n == 0 || p.k == 0 || together <= 0) {
      csv.fail(r.line, "m, n, k and gemm_together_us must be positive");
    }
    if (p.sms == 0) {
      base_us = together;
      continue;
    }
    if (interleaved) {
      p.slowdown_pct = 100.0 * (to_real(csv, r, 12, "gemm_slowdown") - 1.0);
    } else {
      if (base_us <= 0) csv.fail(r.line, "a row with red_sms > 0 before the row with red_sms 0");
      p.slowdown_pct = 100.0 * (together / base_us - 1.0);
    }
    p.kind = "reduction";
    p.red_bytes = to_u64(csv, r, 6, "red_bytes");
    p.label = p.dtype + " " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
              std::to_string(p.k) + ", " + std::to_string(p.sms) + " SMs for " +
              std::to_string(static_cast<int>(p.hold_us)) + " us";
    out.push_back(p);
  }
  return out;
}

std::vector<SharingPoint> load_concurrency_csv(const std::filesystem::path& file,
                                               std::vector<std::string>* left_out) {
  const Csv csv = read_csv(file, {"m,n,k,variant,background_kind,background_ctas,sleep_ns,"
                                  "gemm_us_median,slowdown_pct,background_GBps_rw"});
  std::vector<SharingPoint> out;
  for (const auto& r : csv.rows) {
    const std::string kind = r.fields[4];
    // The kernel holds its SMs for the whole run (launched first, it outlasts the GEMMs); the
    // driver's memcpy row (background_ctas -1) holds none the probe could count: left out.
    if (kind == "none") continue;  // the GEMM alone: the probe's own reference
    if (r.fields[5].empty() || r.fields[5][0] == '-') {
      if (left_out != nullptr) left_out->push_back(kind + " (line " + std::to_string(r.line) + ")");
      continue;
    }
    SharingPoint p;
    p.line = r.line;
    p.m = to_u64(csv, r, 0, "m");
    p.n = to_u64(csv, r, 1, "n");
    p.k = to_u64(csv, r, 2, "k");
    p.dtype = "bf16";
    p.sms = static_cast<uint32_t>(to_u64(csv, r, 5, "background_ctas"));
    p.hold_us = 0;
    p.slowdown_pct = to_real(csv, r, 8, "slowdown_pct");
    p.kind = kind;
    p.sleep_ns = to_u64(csv, r, 6, "sleep_ns");
    const std::string sleep = r.fields[6] == "0" ? "" : ", sleep " + r.fields[6] + " ns";
    p.label = std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + ", " +
              kind + " on " + std::to_string(p.sms) + " SMs" + sleep;
    out.push_back(p);
  }
  return out;
}

std::vector<SharingPoint> load_hold_csv(const std::filesystem::path& file) {
  const std::string head =
      "hold_blocks,hold_sms,hold,m,n,k,dtype,gemm_alone_us,gemm_held_us,gemm_slowdown,"
      "held_during_gemm_us,";
  const std::string tail = "gemm_alone_sm_mhz,gemm_held_sm_mhz,held_smids";
  const Csv csv = read_csv(file, {head + tail, head + "hold_timeouts," + tail});
  const bool has_timeouts = csv.header.find("hold_timeouts") != std::string::npos;
  const size_t clocks = has_timeouts ? 12 : 11;  // gemm_alone_sm_mhz, then gemm_held_sm_mhz
  std::vector<SharingPoint> out;
  for (const auto& r : csv.rows) {
    SharingPoint p;
    p.line = r.line;
    p.kind = "hold";
    p.alone_mhz = to_real(csv, r, clocks, "gemm_alone_sm_mhz");
    p.held_mhz = to_real(csv, r, clocks + 1, "gemm_held_sm_mhz");
    p.sms = static_cast<uint32_t>(to_u64(csv, r, 1, "hold_sms"));
    p.m = to_u64(csv, r, 3, "m");
    p.n = to_u64(csv, r, 4, "n");
    p.k = to_u64(csv, r, 5, "k");
    p.dtype = r.fields[6];
    const double slowdown = to_real(csv, r, 9, "gemm_slowdown");
    const bool whole_run = r.fields[2] == "end";
    p.hold_us = whole_run ? 0.0 : to_real(csv, r, 10, "held_during_gemm_us");
    if (p.dtype != "fp16" && p.dtype != "bf16") csv.fail(r.line, "dtype must be fp16 or bf16");
    if (p.m == 0 || p.n == 0 || p.k == 0 || p.sms == 0 || slowdown <= 0) {
      csv.fail(r.line, "m, n, k, hold_sms and gemm_slowdown must be positive");
    }
    if (!whole_run && p.hold_us <= 0) {
      csv.fail(r.line, "held_during_gemm_us must be positive (the hold ended before the GEMM)");
    }
    if (has_timeouts && to_u64(csv, r, 11, "hold_timeouts") > 0) {
      csv.fail(r.line,
               "hold_timeouts > 0: the watchdog ended the hold, so the row timed the "
               "watchdog; re-run the point or drop the row");
    }
    p.slowdown_pct = 100.0 * (slowdown - 1.0);
    p.label = p.dtype + " " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
              std::to_string(p.k) + ", " + std::to_string(p.sms) + " SMs held " +
              (whole_run ? std::string("throughout")
                         : "for " + std::to_string(static_cast<int>(p.hold_us)) + " us");
    out.push_back(p);
  }
  return out;
}

studies::HeldCus corunner_for(const gpu::GpuSpec& spec, const SharingPoint& p) {
  if (p.kind == "reduction") return studies::contention_reduction(p.sms, p.red_bytes);
  if (p.kind == "hold") {
    studies::HeldCus held;
    held.cus = p.sms;
    held.for_time = Duration::ps(static_cast<uint64_t>(p.hold_us * 1e6));
    return held;
  }
  studies::HeldCus held = studies::background_kernel(spec, p.kind, p.sms, p.sleep_ns);
  if (p.hold_us > 0) held.for_time = Duration::ps(static_cast<uint64_t>(p.hold_us * 1e6));
  return held;
}

double steady_clock_mhz(const SharingPoint& p) {
  if (p.alone_mhz <= 0 || p.held_mhz <= 0) return 0.0;
  const double lo = std::min(p.alone_mhz, p.held_mhz);
  const double hi = std::max(p.alone_mhz, p.held_mhz);
  return hi <= 1.02 * lo ? p.alone_mhz : 0.0;
}

namespace {

// `system` with its GPU at a fixed `mhz` and no power controller.
ConfigDoc at_fixed_clock(const ConfigDoc& system, double mhz) {
  ConfigDoc fixed = system;
  nlohmann::json& gpu = fixed.root["gpu"];
  gpu.erase("power");
  gpu["clock"] = std::to_string(static_cast<uint64_t>(std::llround(mhz))) + " MHz";
  return fixed;
}

}  // namespace

double sim_gemm_slowdown_pct(const ConfigDoc& system, const SharingPoint& p) {
  const double mhz = steady_clock_mhz(p);
  if (mhz > 0) {
    SharingPoint run = p;
    run.alone_mhz = run.held_mhz = 0;
    return sim_gemm_slowdown_pct(at_fixed_clock(system, mhz), run);
  }
  const gpu::GemmShape shape{p.m, p.n, p.k, 1, precision_of(p.dtype)};
  const double alone = studies::probe_gemm(system, shape).time_us;
  const gpu::GpuSpec spec = system::system_gpu_spec(system);
  const double with = studies::probe_gemm(system, shape, corunner_for(spec, p)).time_us;
  return 100.0 * (with / alone - 1.0);
}

std::vector<ClockPoint> load_clock_csv(const std::filesystem::path& file) {
  const std::string head =
      "m,n,k,background_kind,background_ctas,gemm_us,sm_clock_MHz,power_W,background_GBps_rw";
  const Csv csv = read_csv(file, {head, head + ",dtype"});
  const bool has_dtype = csv.header != head;
  std::vector<ClockPoint> out;
  for (const auto& r : csv.rows) {
    ClockPoint c;
    c.line = r.line;
    // Without a dtype column the rows are the calibration set's bf16 torch.matmul runs.
    c.run.dtype = has_dtype ? r.fields[9] : "bf16";
    if (c.run.dtype != "fp16" && c.run.dtype != "bf16")
      csv.fail(r.line, "dtype must be fp16 or bf16");
    c.run.m = to_u64(csv, r, 0, "m");
    c.run.n = to_u64(csv, r, 1, "n");
    c.run.k = to_u64(csv, r, 2, "k");
    c.run.kind = r.fields[3];
    c.run.sms = static_cast<uint32_t>(to_u64(csv, r, 4, "background_ctas"));
    c.clock_mhz = to_real(csv, r, 6, "sm_clock_MHz");
    const std::string& k = c.run.kind;
    if (k != "none" && k != "copy" && k != "spin" && k != "ce") {
      csv.fail(r.line, "background_kind must be none, copy, spin or ce");
    }
    if (c.run.m == 0 || c.run.n == 0 || c.run.k == 0 || c.clock_mhz <= 0) {
      csv.fail(r.line, "m, n, k and sm_clock_MHz must be positive");
    }
    c.label = std::to_string(c.run.m) + "x" + std::to_string(c.run.n) + "x" +
              std::to_string(c.run.k) + " " + c.run.dtype + ", " + k +
              (c.run.sms > 0 ? " on " + std::to_string(c.run.sms) + " SMs" : "") + " (line " +
              std::to_string(r.line) + ")";
    out.push_back(c);
  }
  return out;
}

double sim_gemm_clock_mhz(const ConfigDoc& system, const ClockPoint& p) {
  const gpu::GemmShape shape{p.run.m, p.run.n, p.run.k, 1, precision_of(p.run.dtype)};
  if (p.run.kind == "none") return studies::probe_gemm(system, shape).clock_mhz;
  const gpu::GpuSpec spec = system::system_gpu_spec(system);
  return studies::probe_gemm(system, shape, corunner_for(spec, p.run)).clock_mhz;
}

std::vector<GemmMemoryPoint> load_gemm_memory_csv(const std::filesystem::path& file) {
  const Csv csv = read_csv(
      file, {"m,n,k,kernel,grid_ctas,time_us,dram_read_MB,dram_write_MB,dram_read_over_compulsory,"
             "dram_write_over_output,l2_sector_hit_pct,l2_read_hit_pct,l2_write_hit_pct,dram_GBps,"
             "dram_pct_of_peak,sm_throughput_pct,sm_clock_MHz,l2_traffic_MB,smem_per_cta_KB,"
             "regs_per_thread,tflops"});
  std::vector<GemmMemoryPoint> out;
  for (const auto& r : csv.rows) {
    GemmMemoryPoint p;
    p.line = r.line;
    p.m = to_u64(csv, r, 0, "m");
    p.n = to_u64(csv, r, 1, "n");
    p.k = to_u64(csv, r, 2, "k");
    p.read_mb = to_real(csv, r, 6, "dram_read_MB");
    if (p.m == 0 || p.n == 0 || p.k == 0 || p.read_mb <= 0) {
      csv.fail(r.line, "m, n, k and dram_read_MB must be positive");
    }
    out.push_back(p);
  }
  return out;
}

double sim_gemm_read_mb(const ConfigDoc& system, const GemmMemoryPoint& p) {
  const gpu::GemmShape shape{p.m, p.n, p.k, 1, gpu::Precision::kFp16};
  return static_cast<double>(studies::probe_gemm(system, shape).dram_read_bytes) / 1e6;
}

double sim_gemm_tflops(const ConfigDoc& system, uint64_t m, uint64_t n, uint64_t k, uint64_t batch,
                       gpu::Precision precision) {
  return studies::probe_gemm(system, gpu::GemmShape{m, n, k, batch, precision}).tflops;
}

double sim_hbm_gbps(const ConfigDoc& system, const std::string& pattern, uint64_t bytes) {
  const auto found = studies::hbm_pattern_commands(pattern);
  if (!found || pattern == "update")
    throw UsageError("HBM pattern must be read, write, copy or rmw (got '" + pattern + "')");
  const std::vector<common::MemCmd>& cmds = *found;
  const double moved = static_cast<double>(bytes) * static_cast<double>(cmds.size());
  return moved / studies::probe_hbm_streams(system, cmds, bytes).to_s() / 1e9;
}

double sim_allreduce_busbw(const ConfigDoc& system, uint64_t bytes) {
  collectives::CollectiveSpec spec;
  spec.kind = collectives::Kind::kAllReduce;
  spec.bytes = bytes;
  spec.elem_bytes = 4;
  const int n = system::system_gpus(system);
  for (int g = 0; g < n; ++g) spec.group.push_back(g);
  const double us = studies::probe_collective(system, spec).time_us;
  return static_cast<double>(bytes) / (us * 1e3) * studies::busbw_factor(spec.kind, n);
}

std::vector<double> gemm_errors(const ConfigDoc& system, const std::vector<GemmPoint>& points,
                                unsigned threads) {
  std::vector<double> err(points.size());
  studies::run_parallel(points.size(), threads, [&](size_t i) {
    const GemmPoint& p = points[i];
    err[i] = pct_error(sim_gemm_tflops(system, p.m, p.n, p.k, p.batch, precision_of(p)), p.tflops);
  });
  return err;
}

std::vector<double> hbm_errors(const ConfigDoc& system, const std::vector<HbmPoint>& points,
                               unsigned threads) {
  std::vector<double> err(points.size());
  studies::run_parallel(points.size(), threads, [&](size_t i) {
    err[i] = pct_error(sim_hbm_gbps(system, points[i].pattern, points[i].bytes), points[i].gbps);
  });
  return err;
}

}  // namespace t3sim::validation
