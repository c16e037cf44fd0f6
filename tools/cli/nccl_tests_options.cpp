#include "cli/nccl_tests_options.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "cli/common.h"
#include "models/collectives/algorithms.h"
#include "sim/errors.h"

namespace t3sim::cli {
namespace {

constexpr NcclDtype kTypes[] = {{"float", 4}, {"half", 2},  {"bfloat16", 2}, {"double", 8},
                                {"int8", 1},  {"uint8", 1}, {"int32", 4},    {"uint32", 4},
                                {"int64", 8}, {"uint64", 8}};
constexpr const char* kRedops[] = {"sum", "prod", "min", "max", "avg"};
// Multiplications by -f walked from -b to -e at most (a factor a hair above 1 takes billions).
constexpr uint64_t kMaxSteps = 10'000'000;

// nccl-tests sizes: a number with an optional K/M/G/T suffix (binary multiples).
uint64_t parse_size(const std::string& s, const char* opt) {
  size_t used = 0;
  uint64_t v = 0;
  const bool digits = !s.empty() && std::isdigit(static_cast<unsigned char>(s[0]));
  try {
    if (digits) v = std::stoull(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0)
    throw UsageError(std::string(opt) + ": '" + s + "' is not a size (e.g. 32K, 1M, 1G)");
  const std::string suffix = s.substr(used);
  const std::string units = "KMGT";
  if (suffix.size() > 1) throw UsageError(std::string(opt) + ": bad size suffix '" + suffix + "'");
  if (suffix.size() == 1) {
    const size_t k = units.find(static_cast<char>(std::toupper(suffix[0])));
    if (k == std::string::npos)
      throw UsageError(std::string(opt) + ": bad size suffix '" + suffix + "'");
    const unsigned shift = 10 * static_cast<unsigned>(k + 1);
    if (v > (UINT64_MAX >> shift))
      throw UsageError(std::string(opt) + ": '" + s + "' is too large");
    v <<= shift;
  }
  return v;
}

std::string test_names() {
  std::string all;
  for (const auto& k : collectives::kind_table())
    all += (all.empty() ? "" : ", ") + std::string(k.test);
  return all;
}

}  // namespace

std::vector<uint64_t> NcclTestsOptions::rows(uint64_t unit) const {
  std::vector<uint64_t> out;
  const auto too_many = [&] {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "%s: over %zu distinct sizes from -b %llu to -e %llu; give a larger %s",
                  step_bytes > 0 ? "-i" : "-f", kMaxNcclRows, static_cast<unsigned long long>(lo),
                  static_cast<unsigned long long>(hi), step_bytes > 0 ? "-i" : "-f");
    return UsageError(buf);
  };
  // Keeps `size` rounded down to whole units unless it is 0 or the last row again.
  const auto add = [&](uint64_t size) {
    const uint64_t bytes = size / unit * unit;
    if (bytes == 0 || (!out.empty() && bytes <= out.back())) return;
    if (out.size() == kMaxNcclRows) throw too_many();
    out.push_back(bytes);
  };
  if (step_bytes > 0) {
    for (uint64_t s = lo; s <= hi;) {
      add(s);
      // The next size of a new unit: lo + k * step >= (s / unit + 1) * unit, without overflow.
      const uint64_t next_unit = s / unit + 1;
      if (next_unit > hi / unit) break;  // past -e
      const uint64_t target = next_unit * unit;
      const uint64_t k = (target - lo) / step_bytes + ((target - lo) % step_bytes != 0 ? 1 : 0);
      if (k > (hi - lo) / step_bytes) break;
      s = lo + k * step_bytes;
    }
  } else {
    uint64_t steps = 0;
    for (double s = static_cast<double>(lo); s <= static_cast<double>(hi) * (1 + 1e-9);
         s *= factor) {
      if (++steps > kMaxSteps) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "-f: %.17g takes over %llu steps from -b %llu to -e %llu; give a larger -f",
                      factor, static_cast<unsigned long long>(kMaxSteps),
                      static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi));
        throw UsageError(buf);
      }
      // Never past -e (the tolerance above absorbs rounding), nor past what llround holds.
      const double size = std::min(s, static_cast<double>(hi));
      add(size >= 9.0e18 ? hi : static_cast<uint64_t>(std::llround(size)));
    }
  }
  if (out.empty()) {
    const std::string why = unit == type->bytes ? std::string(type->name)
                                                : std::string(type->name) + " x " +
                                                      std::to_string(unit / type->bytes) +
                                                      " GPUs for " + std::string(kind->test);
    throw UsageError("-b/-e: every size from " + std::to_string(lo) + " to " + std::to_string(hi) +
                     " B is under one " + std::to_string(unit) + " B unit (" + why +
                     ") and rounds down to 0; the smallest size that runs is " +
                     std::to_string(unit) + " B: give -e " + std::to_string(unit) + " or more");
  }
  return out;
}

std::string NcclTestsOptions::step_text() const {
  char buf[64];
  if (step_bytes > 0) {
    std::snprintf(buf, sizeof buf, "%llu(bytes)", static_cast<unsigned long long>(step_bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%g(factor)", factor);
  }
  return buf;
}

NcclTestsOptions parse_nccl_tests(const Args& args, bool& help) {
  po::options_description desc("t3sim nccl-tests options (nccl-tests' short spellings)");
  std::string test, algo, exec, proto, minb, maxb, stepb, dtype;
  NcclTestsOptions o;
  uint32_t channels = 0;
  int root = 0;
  bool full = false;
  desc.add_options()("test", po::value(&test)->required(),
                     ("the program: " + test_names()).c_str())(
      "system", po::value(&o.system)->required(), "system name or path")(
      "gpus", integer(&o.gpus, 0, 4096)->default_value(0),
      "use the first N GPUs (0 = all; or -t x -g)")(
      "nthreads,t", integer(&o.threads, 1, 4096)->default_value(1),
      "threads; with -g, the group is the first t x g GPUs")(
      "ngpus,g", integer(&o.gpus_per_thread, 1, 4096),
      "GPUs per thread (default: every GPU of the system in one thread)")(
      "minbytes,b", po::value(&minb)->default_value("32M"), "smallest size")(
      "maxbytes,e", po::value(&maxb)->default_value("32M"), "largest size")(
      "stepfactor,f", po::value(&o.factor)->default_value(2), "size multiplier")(
      "stepbytes,i", po::value(&stepb), "linear size increment (instead of -f)")(
      "datatype,d", po::value(&dtype)->default_value("float"),
      "float | half | bfloat16 | double | int8 | uint8 | int32 | uint32 | int64 | uint64")(
      "op,o", po::value(&o.redop)->default_value("sum"),
      "sum | prod | min | max | avg (printed; every reduction costs the same)")(
      "root,r", integer(&root, 0, 4095)->default_value(0), "root rank of broadcast and reduce")(
      "iters,n", integer(&o.iters, 1, 1000000)->default_value(20),
      "iterations (printed; a deterministic simulation repeats the same time)")(
      "warmup_iters,w", integer(&o.warmup, 0, 1000000)->default_value(5),
      "warm-up iterations (printed; nothing to warm up in a simulation)")(
      "check,c", integer(&o.check, 0, 1)->default_value(1),
      "1: #wrong = payload bytes the schedule failed to deliver (0: N/A)")(
      "algo", po::value(&algo)->default_value("auto"), collectives::algorithm_help().c_str())(
      "executor", po::value(&exec), "cu | dma (default: the system's collectives.executor)")(
      "proto", po::value(&proto)->default_value("auto"), "auto | simple | ll128 | ll")(
      "channels", integer(&channels, 0u, 64u)->default_value(0),
      "channels, 1..64 (0 = the system's)")("set", po::value(&o.sets)->composing(),
                                            "override: path=value")(
      "compare", po::value(&o.compare), "measured CSV: size_bytes,time_us,algbw_gbps,busbw_gbps")(
      "p2p-direct", po::value(&o.p2p_direct)->default_value("auto"),
      "auto | on | off: NCCL's P2P direct pointers (a ring's last receive moves no data); auto "
      "assumes nccl-tests' one process for -t threads x -g GPUs, hence on; off: one process per "
      "GPU (mpirun -np N ... -g 1)")("verbose,v", po::bool_switch(&o.verbose),
                                     "a comment line per size: choices, wall time")(
      "full", po::bool_switch(&full),
      "simulate every GPU (default: GPU 0 alone when the run is rotation-symmetric)");
  o.trace.add(desc);
  po::positional_options_description pos;
  pos.add("test", 1);
  po::variables_map vm;
  help = !parse_options(args, desc, vm, &pos,
                        "t3sim nccl-tests all_reduce_perf --system S [-b 1M -e 1G -f 2] "
                        "[-g 8] [--compare CSV]");
  if (help) return o;
  for (const auto& k : collectives::kind_table()) o.kind = test == k.test ? &k : o.kind;
  if (o.kind == nullptr) throw UsageError("unknown test '" + test + "' (" + test_names() + ")");
  for (const NcclDtype& t : kTypes) o.type = dtype == t.name ? &t : o.type;
  if (o.type == nullptr) throw UsageError("-d: unknown datatype '" + dtype + "'");
  bool redop_ok = false;
  for (const char* r : kRedops) redop_ok = redop_ok || o.redop == r;
  if (!redop_ok) throw UsageError("-o: unknown reduction '" + o.redop + "' (sum|prod|min|max|avg)");
  o.lo = parse_size(minb, "-b");
  o.hi = parse_size(maxb, "-e");
  if (!stepb.empty()) {
    o.step_bytes = parse_size(stepb, "-i");
    if (o.step_bytes == 0) throw UsageError("-i: the increment must be positive");
  }
  if (o.lo == 0 || o.hi < o.lo || !(o.factor > 1.0 && o.factor <= 1e6)) {
    throw UsageError("need 0 < -b <= -e and 1 < -f <= 1e6");
  }
  if (vm.count("ngpus") == 0 && vm["nthreads"].as<int>() != 1 && o.gpus == 0) {
    throw UsageError("-t needs -g (GPUs per thread)");
  }
  if (vm.count("ngpus") != 0 && !vm["gpus"].defaulted()) {
    throw UsageError("give either --gpus or -t/-g, not both");
  }
  if (o.p2p_direct != "auto" && o.p2p_direct != "on" && o.p2p_direct != "off") {
    throw UsageError("--p2p-direct: '" + o.p2p_direct + "' is not auto, on or off");
  }
  o.base.kind = o.kind->kind;
  o.base.root = root;
  o.base.algo = collectives::parse_algo(algo, "--algo");
  o.base.proto = collectives::parse_protocol(proto, "--proto");
  if (!exec.empty()) o.base.exec = collectives::parse_executor(exec, "--executor");
  o.base.channels = channels;
  o.base.elem_bytes = o.type->bytes;
  o.base.fold = !full;
  return o;
}

std::string p2p_direct_override(const NcclTestsOptions& o) {
  // nccl-tests drives all its threads' GPUs from one process: NCCL's P2P transport then passes
  // direct pointers between them (validation/reference/hardware.md §5.1, directRecv).
  const bool direct = o.p2p_direct != "off";
  return std::string("collectives.p2p_direct=") + (direct ? "true" : "false");
}

void resolve_nccl_tests_gpus(NcclTestsOptions& o, int total) {
  if (o.gpus_per_thread > 0) o.gpus = o.threads * o.gpus_per_thread;
  if (o.gpus == 0) {
    o.gpus = total;
    o.threads = 1;
  }
  if (o.gpus < 1 || o.gpus > total) {
    throw UsageError("the group (--gpus or -t x -g) must be 1.." + std::to_string(total) +
                     " GPUs on this system, not " + std::to_string(o.gpus));
  }
  if (o.gpus % o.threads != 0) o.threads = 1;
  if (o.kind->rooted && o.base.root >= o.gpus) {
    throw UsageError("-r: root " + std::to_string(o.base.root) + " is not a rank of the " +
                     std::to_string(o.gpus) + "-GPU group");
  }
}

}  // namespace t3sim::cli
