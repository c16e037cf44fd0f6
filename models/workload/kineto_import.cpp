#include "models/workload/kineto_import.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/workload/kineto_comms.h"
#include "models/workload/kineto_copies.h"
#include "models/workload/kineto_fixed.h"
#include "models/workload/kineto_gemm.h"
#include "models/workload/kineto_groups.h"
#include "models/workload/kineto_launch.h"
#include "models/workload/kineto_memory.h"
#include "models/workload/kineto_names.h"
#include "models/workload/kineto_schema.h"
#include "models/workload/kineto_streams.h"
#include "models/workload/trace_groups.h"
#include "sim/errors.h"
#include "sim/strict_json.h"

namespace t3sim::workload {
namespace {

// A GPU event as the import reads it; name and args are read when it is added (loaded()).
struct GpuEvent {
  std::size_t index = 0;  // position in the events
  double start_us = 0;
  double dur_us = 0;
  std::int64_t cuda_stream = 0;
  std::string cat;      // lower case
  std::string name;     // once loaded
  nlohmann::json args;  // once loaded: the "args" object, or null
  const nlohmann::json* args_ptr() const { return args.is_object() ? &args : nullptr; }
};

std::string to_lower_case(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

GpuEvent read_gpu_event(const nlohmann::json& e, std::size_t index, const std::string& file,
                        const std::string& pointer) {
  const ObjectReader r(e, file, pointer, "Kineto GPU event");
  GpuEvent g;
  g.index = index;
  r.string("name");  // checked here, read when loaded
  g.start_us = r.number("ts", -1e18, 1e18);
  g.dur_us = r.number("dur", 0, kMaxMicroseconds);
  g.cat = to_lower_case(r.string("cat"));
  const nlohmann::json* args = kineto_args(e);
  if (args != nullptr && args->contains("stream")) {
    g.cuda_stream = ObjectReader(*args, file, r.pointer("args"), "Kineto GPU event args")
                        .integer("stream", 0, std::int64_t{1} << 48);
  } else {
    g.cuda_stream = r.integer("tid", 0, std::int64_t{1} << 48);
  }
  return g;
}

// What GPU events are sorted by (the event is read again when added).
struct GpuSlot {
  std::size_t index = 0;
  double start_us = 0;
};

KernelCategory copy_category(const GpuEvent& e) {
  return e.cat.find("memset") != std::string::npos ? KernelCategory::kMemset
                                                   : KernelCategory::kMemcpy;
}

// `g` with its name and args read from its event.
GpuEvent loaded(const GpuEvent& g, const nlohmann::json& e) {
  GpuEvent out = g;
  out.name = kineto_string(e, "name");
  if (const nlohmann::json* args = kineto_args(e)) out.args = *args;
  return out;
}

class Importer {
 public:
  Importer(KinetoEvents events, const std::string& file, const KinetoImportOptions& options,
           std::optional<std::int64_t> world_size, std::optional<int> rank,
           const std::vector<std::size_t>* original)
      : events_(std::move(events)),
        file_(file),
        options_(options),
        world_size_(world_size),
        rank_(rank),
        original_(original),
        launches_(std::in_place, events_) {}

  KinetoImport run() {
    std::vector<GpuSlot> gpu = gpu_events();
    if (gpu.empty()) {
      throw ConfigError(file_, "/traceEvents",
                        "no GPU events (\"cat\": \"kernel\"); profile with "
                        "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]");
    }
    pending_.reserve(gpu.size());  // at most one op per event: no growth slack on large profiles
    for (const GpuSlot& g : gpu) {
      const nlohmann::json e = events_[g.index];
      add_event(loaded(read_gpu_event(e, g.index, file_, event_pointer(g.index)), e));
    }
    const std::size_t gpu_count = gpu.size();
    std::vector<GpuSlot>().swap(gpu);  // neither these nor the events and indexes are read again
    launches_.reset();
    events_ = KinetoEvents();
    std::unordered_map<std::size_t, std::size_t>().swap(gemm_by_op_);
    split_memory_bytes();
    assign_streams_and_deps();
    KinetoImport out;
    out.trace.metadata.source = "kineto";
    out.trace.metadata.description = fmt::format(
        "imported from the Kineto trace {} ({} GPU events; {:.1f} % of GPU time "
        "simulated)",
        file_, gpu_count, summary_.simulated_share());
    out.trace.metadata.rank = rank_;
    out.trace.ops.reserve(pending_.size());
    for (KinetoPending& p : pending_) {
      if (!p.ranks.empty()) {
        p.op.process_group = intern_process_group(out.trace.metadata, std::move(p.ranks));
      }
      out.trace.ops.push_back(std::move(p.op));
    }
    std::vector<KinetoPending>().swap(pending_);  // moved into the trace
    check_trace(out.trace, file_);
    summary_.gpu_events = static_cast<std::int64_t>(gpu_count);
    summary_.idle_kept = options_.keep_idle;
    out.summary = std::move(summary_);
    return out;
  }

 private:
  std::vector<GpuSlot> gpu_events() {
    const std::initializer_list<std::string_view> kGpuCats = {"kernel", "gpu_memcpy", "gpu_memset",
                                                              "memcpy", "memset"};
    std::vector<GpuSlot> gpu;
    for (std::size_t i = 0; i < events_.size(); ++i) {
      const nlohmann::json e = events_[i];
      if (is_kineto_complete(e, kGpuCats)) {
        gpu.push_back({i, read_gpu_event(e, i, file_, event_pointer(i)).start_us});
      } else if (e.is_object() && !e.contains("ph") &&
                 is_kineto_complete({{"ph", "X"}, {"cat", kineto_string(e, "cat")}}, kGpuCats)) {
        without_ph(e, i);
      }
    }
    std::stable_sort(gpu.begin(), gpu.end(),
                     [](const GpuSlot& a, const GpuSlot& b) { return a.start_us < b.start_us; });
    return gpu;
  }

  void add_event(const GpuEvent& e) {
    summary_.gpu_us += e.dur_us;
    if (e.cat != "kernel") {
      add_copy(e);
      return;
    }
    const KernelLaunch launch = launches_->launch_of(e.args_ptr());
    if (!launch.stack.empty()) {
      ++(launch.runtime ? summary_.linked_by_launch : summary_.linked_by_external);
    }
    if (is_comm_kernel(e.name)) {
      add_collective(e, launch);
    } else if (const std::optional<std::size_t> gemm = launcher(launch, is_gemm_op)) {
      add_gemm(e, *gemm);
    } else if (launch.graph) {
      unmodelled(e, KernelCategory::kGraph,
                 "kernels replayed by a CUDA graph (cudaGraphLaunch): the graph records no op or "
                 "shapes per kernel",
                 e.name, event_pointer(e.index));
    } else if (const std::optional<std::size_t> memory = launcher(launch, memory_family)) {
      add_memory(e, *memory);
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

  // The op that launched the kernel, when the innermost aten op around the launch is one `pick`
  // accepts (an aten::copy_ inside aten::matmul launches a copy, not the GEMM).
  template <typename Pick>
  std::optional<std::size_t> launcher(const KernelLaunch& launch, Pick pick) const {
    for (auto it = launch.stack.rbegin(); it != launch.stack.rend(); ++it) {
      const std::string name = kineto_string(events_[*it], "name");
      if (!name.starts_with("aten::")) continue;
      if (pick(name)) return *it;
      return std::nullopt;
    }
    return std::nullopt;
  }

  // Device copies and sets become memory ops; host and peer copies stay fixed.
  void add_copy(const GpuEvent& e) {
    const KinetoCopy copy = kineto_copy(e.name, e.cat, e.args_ptr());
    if (const std::optional<std::int64_t> bytes = copy_memory_bytes(copy)) {
      push(e, memory_op(e, *bytes, e.name), KernelCategory::kMemory);
    } else if (copy.kind == CopyKind::kHost || copy.kind == CopyKind::kPeer) {
      push(e, fixed_op(e), KernelCategory::kHostCopy);
    } else {
      push(e, fixed_op(e), copy_category(e));
    }
  }

  // A kernel of a memory-bound op (kineto_memory.h): the op's bytes; without shapes, fixed.
  void add_memory(const GpuEvent& e, std::size_t cpu) {
    const nlohmann::json cpu_op = events_[cpu];
    const std::string name = kineto_string(cpu_op, "name");
    const MemoryFamily& family = *memory_family(name);
    const nlohmann::json* args = kineto_args(cpu_op);
    if (args == nullptr || !args->contains("Input Dims")) {
      push(e, fixed_op(e), KernelCategory::kMemoryUnmodelled);  // reason: no shapes recorded
      return;
    }
    try {
      const std::int64_t bytes =
          memory_op_bytes(family, *args, file_, event_pointer(cpu) + "/args");
      memory_by_op_[cpu].push_back(pending_.size());
      push(e, memory_op(e, bytes, name + ": " + e.name), KernelCategory::kMemory);
    } catch (const ConfigError& error) {
      if (options_.strict) throw;
      unmodelled(e, KernelCategory::kMemoryUnmodelled,
                 fmt::format("{} ops ({}) without usable sizes", name, family.name), error.what(),
                 error.pointer());
    }
  }

  // A host op that launched n kernels: its bytes are split evenly over them, the remainder on the
  // first (each kernel moves its share of the op's tensors).
  void split_memory_bytes() {
    for (const auto& [cpu, ops] : memory_by_op_) {
      const auto n = static_cast<std::int64_t>(ops.size());
      const std::int64_t total = pending_[ops.front()].op.bytes;
      for (std::size_t i = 0; n > 1 && i < ops.size(); ++i) {
        const std::int64_t share = total / n + (i == 0 ? total % n : 0);
        pending_[ops[i]].op.bytes = std::max<std::int64_t>(share, 1);
      }
    }
  }

  void add_gemm(const GpuEvent& e, std::size_t cpu) {
    if (const auto it = gemm_by_op_.find(cpu); it != gemm_by_op_.end()) {
      KinetoPending& merged = pending_[it->second];  // a split kernel of the same GEMM
      *merged.op.measured_us = std::min(*merged.op.measured_us + e.dur_us, kMaxMicroseconds);
      merged.end_us = std::max(merged.end_us, e.start_us + e.dur_us);
      summary_.add(KernelCategory::kGemm, e.dur_us);
      return;
    }
    try {
      Op op = kineto_gemm_op(events_[cpu], e.name, e.dur_us, file_, event_pointer(cpu));
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

  static Op memory_op(const GpuEvent& e, std::int64_t bytes, std::string name) {
    Op op;
    op.kind = OpKind::kMemory;
    op.bytes = bytes;
    op.measured_us = e.dur_us;
    op.name = std::move(name);
    return op;
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
      const KernelLaunch launch =
          e.cat == "kernel" ? launches_->launch_of(e.args_ptr()) : KernelLaunch{};
      summary_.add_fixed(fixed_reason(category, e.args_ptr(), launch, events_), e.dur_us);
    }
    const int n = per_stream_count_[e.cuda_stream]++;
    op.id = fmt::format("s{}.{}.{}", e.cuda_stream, n, to_string(op.kind));
    pending_.push_back({std::move(op), e.cuda_stream, e.start_us, e.start_us + e.dur_us});
  }

  // The event's pointer in the file (events_ may be the events kept from it).
  std::string event_pointer(std::size_t index) const {
    return fmt::format("/traceEvents/{}", original_ != nullptr ? (*original_)[index] : index);
  }

  void assign_streams_and_deps() {
    const KinetoStreamTiming t = assign_kineto_streams(pending_, options_.infer_cross_stream_deps,
                                                       options_.keep_idle, file_);
    summary_.streams = t.streams;
    summary_.idle_us = t.idle_us;
    summary_.span_us = t.span_us;
  }

  KinetoEvents events_;
  const std::string& file_;
  const KinetoImportOptions& options_;
  std::optional<std::int64_t> world_size_;
  std::optional<int> rank_;
  const std::vector<std::size_t>* original_;
  std::optional<LaunchIndex> launches_;  // dropped once every GPU event is added
  ImportSummary summary_;
  std::unordered_map<std::size_t, std::size_t> gemm_by_op_;       // matmul cpu_op -> pending
  std::map<std::size_t, std::vector<std::size_t>> memory_by_op_;  // memory cpu_op -> pending
  std::map<std::int64_t, int> per_stream_count_;
  std::vector<KinetoPending> pending_;
};

}  // namespace

KinetoImport import_kineto_profile(const nlohmann::json& chrome_trace, const std::string& file,
                                   const KinetoImportOptions& options) {
  if (chrome_trace.is_array()) {  // the Trace Event Format's array form (PyTorch 1.8's profiler)
    return Importer(KinetoEvents::of_array(chrome_trace), file, options, std::nullopt, std::nullopt,
                    nullptr)
        .run();
  }
  const ObjectReader top(chrome_trace, file, "", "Kineto Chrome trace");
  const nlohmann::json& events = top.get("traceEvents");
  if (!events.is_array()) top.fail("traceEvents", "\"traceEvents\" must be an array of events");
  return Importer(KinetoEvents::of_array(events), file, options, kineto_world_size(chrome_trace),
                  kineto_rank(chrome_trace), nullptr)
      .run();
}

KinetoImport import_kineto_events(KinetoEvents events, const std::vector<std::size_t>& original,
                                  std::optional<std::int64_t> world_size, const std::string& file,
                                  const KinetoImportOptions& options, std::optional<int> rank) {
  return Importer(std::move(events), file, options, world_size, rank, &original).run();
}

Trace import_kineto(const nlohmann::json& chrome_trace, const std::string& file,
                    const KinetoImportOptions& options) {
  return import_kineto_profile(chrome_trace, file, options).trace;
}

}  // namespace t3sim::workload
