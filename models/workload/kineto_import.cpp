#include "models/workload/kineto_import.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/workload/kineto_comms.h"
#include "models/workload/kineto_fixed.h"
#include "models/workload/kineto_groups.h"
#include "models/workload/kineto_launch.h"
#include "models/workload/kineto_names.h"
#include "models/workload/kineto_schema.h"
#include "models/workload/trace_groups.h"
#include "sim/errors.h"
#include "sim/strict_json.h"

namespace t3sim::workload {
namespace {

struct GpuEvent {
  std::size_t index = 0;  // position in traceEvents
  double start_us = 0;
  double dur_us = 0;
  std::int64_t cuda_stream = 0;
  std::string name;
  std::string cat;  // lower case
  const nlohmann::json* args = nullptr;
};

struct Pending {
  Op op;
  std::int64_t cuda_stream = 0;
  double start_us = 0;
  double end_us = 0;
  std::vector<int> ranks = {};  // communication: the group's global ranks (empty: not recorded)
};

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

GpuEvent read_gpu_event(const nlohmann::json& e, std::size_t index, const std::string& file,
                        const std::string& pointer) {
  const ObjectReader r(e, file, pointer, "Kineto GPU event");
  GpuEvent g;
  g.index = index;
  g.name = r.string("name");
  g.start_us = r.number("ts", -1e18, 1e18);
  g.dur_us = r.number("dur", 0, kMaxMicroseconds);
  g.cat = lower(r.string("cat"));
  g.args = kineto_args(e);
  if (g.args != nullptr && g.args->contains("stream")) {
    g.cuda_stream = ObjectReader(*g.args, file, r.pointer("args"), "Kineto GPU event args")
                        .integer("stream", 0, std::int64_t{1} << 48);
  } else {
    g.cuda_stream = r.integer("tid", 0, std::int64_t{1} << 48);
  }
  return g;
}

KernelCategory copy_category(const GpuEvent& e) {
  return e.cat.find("memset") != std::string::npos ? KernelCategory::kMemset
                                                   : KernelCategory::kMemcpy;
}

class Importer {
 public:
  Importer(const nlohmann::json& events, const std::string& file,
           const KinetoImportOptions& options, std::optional<std::int64_t> world_size,
           std::optional<int> rank, const std::vector<std::size_t>* original)
      : events_(events),
        file_(file),
        options_(options),
        world_size_(world_size),
        rank_(rank),
        original_(original),
        launches_(events) {}

  KinetoImport run() {
    std::vector<GpuEvent> gpu = gpu_events();
    if (gpu.empty()) {
      throw ConfigError(file_, "/traceEvents",
                        "no GPU events (\"cat\": \"kernel\"); profile with "
                        "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]");
    }
    for (const GpuEvent& e : gpu) add_event(e);
    assign_streams_and_deps();
    KinetoImport out;
    out.trace.metadata.source = "kineto";
    out.trace.metadata.description = fmt::format(
        "imported from the Kineto trace {} ({} GPU events; {:.1f} % of GPU time "
        "simulated)",
        file_, gpu.size(), summary_.simulated_share());
    out.trace.metadata.rank = rank_;
    for (Pending& p : pending_) {
      if (!p.ranks.empty()) {
        p.op.process_group = intern_process_group(out.trace.metadata, std::move(p.ranks));
      }
      out.trace.ops.push_back(std::move(p.op));
    }
    check_trace(out.trace, file_);
    summary_.gpu_events = static_cast<std::int64_t>(gpu.size());
    summary_.idle_kept = options_.keep_idle;
    out.summary = std::move(summary_);
    return out;
  }

 private:
  std::vector<GpuEvent> gpu_events() {
    const std::initializer_list<std::string_view> kGpuCats = {"kernel", "gpu_memcpy", "gpu_memset",
                                                              "memcpy", "memset"};
    std::vector<GpuEvent> gpu;
    for (std::size_t i = 0; i < events_.size(); ++i) {
      const nlohmann::json& e = events_[i];
      if (is_kineto_complete(e, kGpuCats)) {
        gpu.push_back(read_gpu_event(e, i, file_, event_pointer(i)));
      } else if (e.is_object() && !e.contains("ph") &&
                 is_kineto_complete({{"ph", "X"}, {"cat", kineto_string(e, "cat")}}, kGpuCats)) {
        without_ph(e, i);
      }
    }
    std::stable_sort(gpu.begin(), gpu.end(),
                     [](const GpuEvent& a, const GpuEvent& b) { return a.start_us < b.start_us; });
    return gpu;
  }

  void add_event(const GpuEvent& e) {
    summary_.gpu_us += e.dur_us;
    if (e.cat != "kernel") {
      push(e, fixed_op(e), copy_category(e));
      return;
    }
    const KernelLaunch launch = launches_.launch_of(e.args);
    if (!launch.stack.empty()) {
      ++(launch.runtime ? summary_.linked_by_launch : summary_.linked_by_external);
    }
    if (is_comm_kernel(e.name)) {
      add_collective(e, launch);
    } else if (const std::optional<std::size_t> gemm = gemm_launcher(launch)) {
      add_gemm(e, *gemm);
    } else if (launch.graph) {
      unmodelled(e, KernelCategory::kGraph,
                 "kernels replayed by a CUDA graph (cudaGraphLaunch): the graph records no op or "
                 "shapes per kernel",
                 e.name, event_pointer(e.index));
    } else if (std::any_of(launch.stack.begin(), launch.stack.end(), [&](std::size_t i) {
                 return is_conv_op(kineto_string(events_[i], "name"));
               })) {
      push(e, fixed_op(e), KernelCategory::kConvolution);  // not modelled by design: no warning
    } else if (is_gemm_kernel(e.name)) {
      unmodelled(e, KernelCategory::kGemmUnmodelled,
                 "GEMM kernels not linked to a matmul op (no runtime launch with their "
                 "correlation id inside an aten::mm/addmm/matmul/linear/bmm/baddbmm)",
                 e.name, event_pointer(e.index));
    } else {
      push(e, fixed_op(e), KernelCategory::kOther);
    }
  }

  // The matmul op that launched the kernel: the innermost aten op around the launch, if it is
  // one (an aten::copy_ inside aten::matmul launches a copy, not the GEMM).
  std::optional<std::size_t> gemm_launcher(const KernelLaunch& launch) const {
    for (auto it = launch.stack.rbegin(); it != launch.stack.rend(); ++it) {
      const std::string name = kineto_string(events_[*it], "name");
      if (!name.starts_with("aten::")) continue;
      if (is_gemm_op(name)) return *it;
      return std::nullopt;
    }
    return std::nullopt;
  }

  void add_gemm(const GpuEvent& e, std::size_t cpu) {
    if (const auto it = gemm_by_op_.find(cpu); it != gemm_by_op_.end()) {
      Pending& merged = pending_[it->second];  // a split kernel of the same GEMM
      *merged.op.measured_us = std::min(*merged.op.measured_us + e.dur_us, kMaxMicroseconds);
      merged.end_us = std::max(merged.end_us, e.start_us + e.dur_us);
      summary_.add(KernelCategory::kGemm, e.dur_us);
      return;
    }
    try {
      Op op = gemm_op(e, cpu);
      gemm_by_op_.emplace(cpu, pending_.size());
      push(e, std::move(op), KernelCategory::kGemm);
    } catch (const ConfigError& error) {
      if (options_.strict) throw;
      const std::string op_name = kineto_string(events_[cpu], "name");
      unmodelled(e, KernelCategory::kGemmUnmodelled,
                 op_name + " ops without a usable shape or element type", error.what(),
                 error.pointer());
    }
  }

  Op gemm_op(const GpuEvent& e, std::size_t cpu) const {
    const std::string cpu_pointer = event_pointer(cpu);
    const std::string name = kineto_string(events_[cpu], "name");
    const nlohmann::json* args = kineto_args(events_[cpu]);
    const std::string hint = " (profile with record_shapes=True)";
    if (args == nullptr || !args->contains("Input Dims")) {
      throw ConfigError(file_, cpu_pointer + "/args",
                        fmt::format("{} has no \"Input Dims\"{}", name, hint));
    }
    const auto gemm =
        gemm_from_input_dims(name, args->at("Input Dims"), file_, cpu_pointer + "/args/Input Dims");
    if (!gemm) {
      throw ConfigError(file_, cpu_pointer + "/args/Input Dims",
                        fmt::format("{} multiplies an empty matrix", name));
    }
    const nlohmann::json types = args->value("Input type", nlohmann::json::array());
    const std::string type =
        types.is_array() && gemm->a_input < types.size() && types[gemm->a_input].is_string()
            ? types[gemm->a_input].get<std::string>()
            : std::string();
    std::optional<Dtype> dtype = dtype_from_torch_name(type);
    if (!dtype) {
      throw ConfigError(file_, fmt::format("{}/args/Input type/{}", cpu_pointer, gemm->a_input),
                        fmt::format("{} operand type '{}' is not one t3sim models ({}){}", name,
                                    type, join(dtype_names(), ", "), hint));
    }
    if (*dtype == Dtype::kFp32 && is_tf32_kernel(e.name)) dtype = Dtype::kTf32;
    Op op;
    op.kind = OpKind::kGemm;
    op.shape = gemm->shape;
    op.dtype = dtype;
    op.measured_us = e.dur_us;
    op.name = name + ": " + e.name;
    return op;
  }

  void add_collective(const GpuEvent& e, const KernelLaunch& launch) {
    CommOutcome c = collective_of_kernel(events_, e.index, launch, world_size_, original_, rank_);
    if (!c.op) {
      unmodelled(e, launch.graph ? KernelCategory::kGraph : KernelCategory::kCollectiveUnmodelled,
                 c.reason, c.detail, c.pointer);
      return;
    }
    c.op->measured_us = e.dur_us;
    push(e, std::move(*c.op), KernelCategory::kCollective);
    pending_.back().ranks = std::move(c.ranks);
  }

  // A GPU event with no "ph" (not a complete event, so not read): counted, or strict's error.
  void without_ph(const nlohmann::json& e, std::size_t index) {
    const std::string pointer = event_pointer(index);
    if (options_.strict) {
      throw ConfigError(file_, pointer,
                        "a GPU event without \"ph\"; add \"ph\": \"X\" (without --strict it "
                        "is skipped with a warning)");
    }
    if (summary_.without_ph++ == 0) summary_.first_without_ph = pointer;
    double dur = 0;
    if (e.contains("dur") && e["dur"].is_number()) dur = e["dur"].get<double>();
    summary_.without_ph_us += dur;
  }

  // An op that should be modelled but cannot be: a ConfigError when strict, else a fixed op.
  void unmodelled(const GpuEvent& e, KernelCategory category, const std::string& reason,
                  const std::string& detail, const std::string& pointer) {
    if (options_.strict) {
      throw ConfigError(file_, pointer,
                        fmt::format("{} ({}); without --strict it is kept as a fixed op of its "
                                    "measured time",
                                    reason, detail));
    }
    summary_.warn(reason, detail, pointer, e.dur_us);
    push(e, fixed_op(e), category);
  }

  static Op fixed_op(const GpuEvent& e) {
    Op op;
    op.kind = OpKind::kFixed;
    op.duration_us = e.dur_us;
    op.name = e.name;
    return op;
  }

  void push(const GpuEvent& e, Op op, KernelCategory category) {
    summary_.add(category, e.dur_us);
    if (!is_simulated(category)) {
      const KernelLaunch launch = e.cat == "kernel" ? launches_.launch_of(e.args) : KernelLaunch{};
      summary_.add_fixed(fixed_reason(category, e.args, launch, events_), e.dur_us);
    }
    const int n = per_stream_count_[e.cuda_stream]++;
    op.id = fmt::format("s{}.{}.{}", e.cuda_stream, n, to_string(op.kind));
    pending_.push_back({std::move(op), e.cuda_stream, e.start_us, e.start_us + e.dur_us});
  }

  // The event's pointer in the file (events_ may be the events kept from it).
  std::string event_pointer(std::size_t index) const {
    return fmt::format("/traceEvents/{}", original_ != nullptr ? (*original_)[index] : index);
  }

  std::map<std::int64_t, int> stream_numbers() const;
  void assign_streams_and_deps();

  const nlohmann::json& events_;
  const std::string& file_;
  const KinetoImportOptions& options_;
  std::optional<std::int64_t> world_size_;
  std::optional<int> rank_;
  const std::vector<std::size_t>* original_;
  LaunchIndex launches_;
  ImportSummary summary_;
  std::unordered_map<std::size_t, std::size_t> gemm_by_op_;  // matmul cpu_op -> pending
  std::map<std::int64_t, int> per_stream_count_;
  std::vector<Pending> pending_;
};

std::map<std::int64_t, int> Importer::stream_numbers() const {
  std::set<std::int64_t> compute;
  std::set<std::int64_t> comm;
  for (const Pending& p : pending_) {
    (is_collective(p.op.kind) || is_comm_kernel(p.op.name) ? comm : compute).insert(p.cuda_stream);
  }
  for (std::int64_t s : comm) compute.erase(s);
  std::map<std::int64_t, int> numbers;
  int next = 2;
  const auto assign = [&](const std::set<std::int64_t>& group, int first) {
    for (std::int64_t s : group) numbers[s] = s == *group.begin() ? first : next++;
  };
  if (compute.size() + comm.size() > static_cast<std::size_t>(kMaxStream) + 1) {
    throw ConfigError(file_, "/traceEvents",
                      fmt::format("GPU events on {} CUDA streams; a t3sim trace holds at most {} "
                                  "(import a shorter profile)",
                                  compute.size() + comm.size(), kMaxStream + 1));
  }
  assign(compute, kComputeStream);
  assign(comm, kCommStream);
  return numbers;
}

// Stream order and inferred cross-stream deps; each op's idle_us is its start minus the time it
// could have started (trace start, previous op of its stream, latest op of another stream that
// ended before it started).
void Importer::assign_streams_and_deps() {
  const std::map<std::int64_t, int> numbers = stream_numbers();
  summary_.streams = static_cast<std::int64_t>(numbers.size());
  std::map<std::int64_t, std::vector<std::size_t>> on_stream;           // pending indices so far
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> waited;  // (stream, other) -> pos
  const double t0 = pending_.front().start_us;
  double t_end = t0;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    Pending& p = pending_[i];
    t_end = std::max(t_end, p.end_us);
    p.op.stream = numbers.at(p.cuda_stream);
    std::vector<std::size_t>& mine = on_stream[p.cuda_stream];
    double ready = t0;
    if (!mine.empty()) {
      p.op.deps.push_back(pending_[mine.back()].op.id);
      ready = std::max(ready, pending_[mine.back()].end_us);
    }
    for (const auto& [other, ops] : on_stream) {
      if (!options_.infer_cross_stream_deps || other == p.cuda_stream) continue;
      std::size_t pos = ops.size();
      while (pos > 0 && pending_[ops[pos - 1]].end_us > p.start_us) --pos;
      if (pos == 0) continue;
      ready = std::max(ready, pending_[ops[pos - 1]].end_us);
      const auto key = std::make_pair(p.cuda_stream, other);
      if (waited.contains(key) && waited[key] >= pos) continue;
      waited[key] = pos;
      p.op.deps.push_back(pending_[ops[pos - 1]].op.id);
    }
    const double idle = std::max(0.0, p.start_us - ready);
    summary_.idle_us += idle;
    if (options_.keep_idle) p.op.idle_us = std::min(idle, kMaxMicroseconds);
    mine.push_back(i);
  }
  summary_.span_us = t_end - t0;
}

}  // namespace

std::optional<std::int64_t> kineto_world_size(const nlohmann::json& top) {
  const auto info = top.find("distributedInfo");
  if (info == top.end() || !info->is_object()) return std::nullopt;
  const auto ws = info->find("world_size");
  if (ws == info->end() || !ws->is_number_integer() || ws->get<std::int64_t>() < 1 ||
      ws->get<std::int64_t>() > (std::int64_t{1} << 20)) {
    return std::nullopt;
  }
  return ws->get<std::int64_t>();
}

KinetoImport import_kineto_profile(const nlohmann::json& chrome_trace, const std::string& file,
                                   const KinetoImportOptions& options) {
  if (chrome_trace.is_array()) {  // the Trace Event Format's array form (PyTorch 1.8's profiler)
    return Importer(chrome_trace, file, options, std::nullopt, std::nullopt, nullptr).run();
  }
  const ObjectReader top(chrome_trace, file, "", "Kineto Chrome trace");
  const nlohmann::json& events = top.get("traceEvents");
  if (!events.is_array()) top.fail("traceEvents", "\"traceEvents\" must be an array of events");
  return Importer(events, file, options, kineto_world_size(chrome_trace), kineto_rank(chrome_trace),
                  nullptr)
      .run();
}

KinetoImport import_kineto_events(const nlohmann::json& events,
                                  const std::vector<std::size_t>& original,
                                  std::optional<std::int64_t> world_size, const std::string& file,
                                  const KinetoImportOptions& options, std::optional<int> rank) {
  return Importer(events, file, options, world_size, rank, &original).run();
}

Trace import_kineto(const nlohmann::json& chrome_trace, const std::string& file,
                    const KinetoImportOptions& options) {
  return import_kineto_profile(chrome_trace, file, options).trace;
}

}  // namespace t3sim::workload
