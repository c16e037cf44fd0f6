#include "models/workload/kineto_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/workload/kineto_schema.h"
#include "models/workload/trace.h"
#include "sim/errors.h"
#include "sim/strict_json.h"

namespace t3sim::workload {
namespace {

constexpr std::int64_t kMaxNelems = std::int64_t{1} << 46;
constexpr std::int64_t kMaxGroup = std::int64_t{1} << 20;

struct GpuEvent {
  std::size_t index = 0;  // position in traceEvents
  double start_us = 0;
  double dur_us = 0;
  std::int64_t cuda_stream = 0;
  std::string name;
  bool is_kernel = false;
  std::optional<std::int64_t> external_id;
  const nlohmann::json* args = nullptr;
};

struct Pending {
  Op op;
  std::int64_t cuda_stream = 0;
  double start_us = 0;
  double end_us = 0;
};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string event_pointer(std::size_t index) { return fmt::format("/traceEvents/{}", index); }

// The string member `key` of the event object `e`, or "" when it is absent or not a string (an
// event the importer does not recognise, not an error).
std::string string_member(const nlohmann::json& e, std::string_view key) {
  if (!e.is_object()) return {};
  const auto it = e.find(key);
  return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool is_complete_event(const nlohmann::json& e, std::initializer_list<std::string_view> cats) {
  if (string_member(e, "ph") != "X") return false;
  const std::string cat = lower(string_member(e, "cat"));
  return std::find(cats.begin(), cats.end(), cat) != cats.end();
}

const nlohmann::json* args_of(const nlohmann::json& e) {
  const auto it = e.find("args");
  return it != e.end() && it->is_object() ? &*it : nullptr;
}

std::optional<std::int64_t> external_id(const nlohmann::json* args) {
  if (args == nullptr) return std::nullopt;
  for (const char* key : {"External id", "external id"}) {
    const auto it = args->find(key);
    if (it != args->end() && it->is_number_integer()) return it->get<std::int64_t>();
  }
  return std::nullopt;
}

GpuEvent read_gpu_event(const nlohmann::json& e, std::size_t index, const std::string& file) {
  const ObjectReader r(e, file, event_pointer(index), "Kineto GPU event");
  GpuEvent g;
  g.index = index;
  g.name = r.string("name");
  g.start_us = r.number("ts", -1e18, 1e18);
  g.dur_us = r.number("dur", 0, 1e12);
  g.is_kernel = lower(r.string("cat")) == "kernel";
  g.args = args_of(e);
  g.external_id = external_id(g.args);
  if (g.args != nullptr && g.args->contains("stream")) {
    g.cuda_stream = ObjectReader(*g.args, file, r.pointer("args"), "Kineto GPU event args")
                        .integer("stream", 0, std::int64_t{1} << 48);
  } else {
    g.cuda_stream = r.integer("tid", 0, std::int64_t{1} << 48);
  }
  return g;
}

class Importer {
 public:
  Importer(const nlohmann::json& events, const std::string& file,
           const KinetoImportOptions& options)
      : events_(events), file_(file), options_(options) {}

  Trace run() {
    index_cpu_ops();
    std::vector<GpuEvent> gpu = gpu_events();
    if (gpu.empty()) {
      throw ConfigError(file_, "/traceEvents",
                        "no GPU events (\"cat\": \"kernel\"); profile with "
                        "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]");
    }
    for (const GpuEvent& e : gpu) add_event(e);
    assign_streams_and_deps();
    Trace trace;
    trace.metadata.source = "kineto";
    trace.metadata.description =
        fmt::format("imported from the Kineto trace {} ({} GPU events)", file_, gpu.size());
    for (Pending& p : pending_) trace.ops.push_back(std::move(p.op));
    check_trace(trace, file_);
    return trace;
  }

 private:
  void index_cpu_ops() {
    for (std::size_t i = 0; i < events_.size(); ++i) {
      if (!is_complete_event(events_[i], {"cpu_op", "operator"})) continue;
      if (const auto id = external_id(args_of(events_[i]))) cpu_ops_.emplace(*id, i);
    }
  }

  std::vector<GpuEvent> gpu_events() const {
    std::vector<GpuEvent> gpu;
    for (std::size_t i = 0; i < events_.size(); ++i) {
      if (is_complete_event(events_[i],
                            {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"})) {
        gpu.push_back(read_gpu_event(events_[i], i, file_));
      }
    }
    std::stable_sort(gpu.begin(), gpu.end(),
                     [](const GpuEvent& a, const GpuEvent& b) { return a.start_us < b.start_us; });
    return gpu;
  }

  // The cpu_op that launched `e`, if it is known.
  const nlohmann::json* launcher(const GpuEvent& e) const {
    if (!e.external_id) return nullptr;
    const auto it = cpu_ops_.find(*e.external_id);
    return it == cpu_ops_.end() ? nullptr : &events_[it->second];
  }

  void add_event(const GpuEvent& e) {
    if (e.is_kernel && is_nccl_kernel(e.name)) {
      if (const auto kind = collective_from_nccl_kernel(e.name)) {
        push(e, collective_op(e, *kind));
        return;
      }
    }
    const nlohmann::json* cpu = e.is_kernel ? launcher(e) : nullptr;
    if (cpu != nullptr && is_gemm_op(string_member(*cpu, "name"))) {
      if (const auto it = gemm_by_launch_.find(*e.external_id); it != gemm_by_launch_.end()) {
        Pending& merged = pending_[it->second];  // a split kernel of the same GEMM
        *merged.op.measured_us += e.dur_us;
        if (*merged.op.measured_us > kMaxMicroseconds) {
          throw ConfigError(file_, event_pointer(e.index) + "/dur",
                            fmt::format("the kernels of GEMM launch {} last over {} us together; "
                                        "fix their \"dur\" (microseconds)",
                                        *e.external_id, kMaxMicroseconds));
        }
        merged.end_us = std::max(merged.end_us, e.start_us + e.dur_us);
        return;
      }
      if (std::optional<Op> op = gemm_op(e, *cpu)) {
        gemm_by_launch_.emplace(*e.external_id, pending_.size());
        push(e, std::move(*op));
        return;
      }
    }
    push(e, fixed_op(e));
  }

  std::optional<Op> gemm_op(const GpuEvent& e, const nlohmann::json& cpu) const {
    const std::string cpu_pointer = event_pointer(cpu_ops_.at(*e.external_id));
    const std::string name = string_member(cpu, "name");
    const nlohmann::json* args = args_of(cpu);
    const std::string hint = " (profile with record_shapes=True)";
    if (args == nullptr || !args->contains("Input Dims")) {
      throw ConfigError(file_, cpu_pointer + "/args",
                        fmt::format("{} has no \"Input Dims\"{}", name, hint));
    }
    const auto gemm =
        gemm_from_input_dims(name, args->at("Input Dims"), file_, cpu_pointer + "/args/Input Dims");
    if (!gemm) return std::nullopt;
    const nlohmann::json types = args->value("Input type", nlohmann::json::array());
    const std::string type =
        types.is_array() && gemm->a_input < types.size() && types[gemm->a_input].is_string()
            ? types[gemm->a_input].get<std::string>()
            : std::string();
    const std::optional<Dtype> dtype = dtype_from_torch_name(type);
    if (!dtype) {
      throw ConfigError(file_, fmt::format("{}/args/Input type/{}", cpu_pointer, gemm->a_input),
                        fmt::format("{} operand type '{}' is not one t3sim models ({}){}", name,
                                    type, join(dtype_names(), ", "), hint));
    }
    Op op;
    op.kind = OpKind::kGemm;
    op.shape = gemm->shape;
    op.dtype = dtype;
    op.measured_us = e.dur_us;
    op.name = name + ": " + e.name;
    return op;
  }

  // Collective metadata: on the kernel itself (PyTorch >= 2.1) or on its record_param_comms op.
  ObjectReader collective_args(const GpuEvent& e) const {
    if (e.args != nullptr && e.args->contains("In msg nelems")) {
      return ObjectReader(*e.args, file_, event_pointer(e.index) + "/args",
                          fmt::format("NCCL kernel '{}'", e.name));
    }
    const nlohmann::json* cpu = launcher(e);
    if (cpu != nullptr && string_member(*cpu, "name") == "record_param_comms" && args_of(*cpu)) {
      return ObjectReader(*args_of(*cpu), file_,
                          event_pointer(cpu_ops_.at(*e.external_id)) + "/args",
                          fmt::format("record_param_comms of NCCL kernel '{}'", e.name));
    }
    throw ConfigError(file_, event_pointer(e.index) + "/args",
                      fmt::format("NCCL kernel '{}' carries no \"In msg nelems\" and no linked "
                                  "record_param_comms op; profile with PyTorch >= 2.1, which "
                                  "records collective sizes",
                                  e.name));
  }

  Op collective_op(const GpuEvent& e, OpKind kind) const {
    const ObjectReader r = collective_args(e);
    const std::int64_t in = r.integer("In msg nelems", 0, kMaxNelems);
    const std::int64_t out = r.integer("Out msg nelems", 0, kMaxNelems);
    const std::string type = r.string("dtype");
    const std::optional<Dtype> dtype = dtype_from_torch_name(type);
    if (!dtype) {
      r.fail("dtype", fmt::format("element type '{}' is not one t3sim models ({})", type,
                                  join(dtype_names(), ", ")));
    }
    Op op;
    op.kind = kind;
    op.bytes = std::max(in, out) * bytes_per_element(*dtype);  // the full, unsharded buffer
    op.dtype = dtype;
    op.tp_group = static_cast<int>(r.integer("Group size", 1, kMaxGroup));
    op.measured_us = e.dur_us;
    op.name = e.name;
    return op.bytes > 0 ? op : fixed_op(e);
  }

  static Op fixed_op(const GpuEvent& e) {
    Op op;
    op.kind = OpKind::kFixed;
    op.duration_us = e.dur_us;
    op.name = e.name;
    return op;
  }

  void push(const GpuEvent& e, Op op) {
    const int n = per_stream_count_[e.cuda_stream]++;
    op.id = fmt::format("s{}.{}.{}", e.cuda_stream, n, to_string(op.kind));
    pending_.push_back({std::move(op), e.cuda_stream, e.start_us, e.start_us + e.dur_us});
  }

  std::map<std::int64_t, int> stream_numbers() const;
  void assign_streams_and_deps();

  const nlohmann::json& events_;
  const std::string& file_;
  const KinetoImportOptions& options_;
  std::unordered_map<std::int64_t, std::size_t> cpu_ops_;         // External id -> event
  std::unordered_map<std::int64_t, std::size_t> gemm_by_launch_;  // External id -> pending
  std::map<std::int64_t, int> per_stream_count_;
  std::vector<Pending> pending_;
};

std::map<std::int64_t, int> Importer::stream_numbers() const {
  std::set<std::int64_t> compute;
  std::set<std::int64_t> comm;
  for (const Pending& p : pending_) {
    (is_collective(p.op.kind) ? comm : compute).insert(p.cuda_stream);
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

void Importer::assign_streams_and_deps() {
  const std::map<std::int64_t, int> numbers = stream_numbers();
  std::map<std::int64_t, std::vector<std::size_t>> on_stream;           // pending indices so far
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> waited;  // (stream, other) -> pos
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    Pending& p = pending_[i];
    p.op.stream = numbers.at(p.cuda_stream);
    std::vector<std::size_t>& mine = on_stream[p.cuda_stream];
    if (!mine.empty()) p.op.deps.push_back(pending_[mine.back()].op.id);
    for (const auto& [other, ops] : on_stream) {
      if (!options_.infer_cross_stream_deps || other == p.cuda_stream) continue;
      std::size_t pos = ops.size();
      while (pos > 0 && pending_[ops[pos - 1]].end_us > p.start_us) --pos;
      const auto key = std::make_pair(p.cuda_stream, other);
      if (pos == 0 || (waited.contains(key) && waited[key] >= pos)) continue;
      waited[key] = pos;
      p.op.deps.push_back(pending_[ops[pos - 1]].op.id);
    }
    mine.push_back(i);
  }
}

}  // namespace

Trace import_kineto(const nlohmann::json& chrome_trace, const std::string& file,
                    const KinetoImportOptions& options) {
  const ObjectReader top(chrome_trace, file, "", "Kineto Chrome trace");
  const nlohmann::json& events = top.get("traceEvents");
  if (!events.is_array()) top.fail("traceEvents", "\"traceEvents\" must be an array of events");
  return Importer(events, file, options).run();
}

}  // namespace t3sim::workload
