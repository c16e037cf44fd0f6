#include "models/workload/kineto_launch.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace t3sim::workload {
namespace {

std::string lower_view(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// "pid/tid" with numbers and numeric strings written alike (Kineto writes tid 25738 on cpu ops
// and "25738" on runtime events in some versions).
std::string id_text(const nlohmann::json& e, std::string_view key) {
  const auto it = e.find(key);
  if (it == e.end()) return "?";
  if (it->is_number_integer()) return std::to_string(it->get<std::int64_t>());
  if (it->is_string()) return it->get<std::string>();
  return "?";
}

std::string thread_key(const nlohmann::json& e) {
  return id_text(e, "pid") + "/" + id_text(e, "tid");
}

bool number_member(const nlohmann::json& e, std::string_view key, double& out) {
  const auto it = e.find(key);
  if (it == e.end() || !it->is_number()) return false;
  out = it->get<double>();
  return true;
}

bool is_graph_launch(std::string_view name) {
  return name.find("GraphLaunch") != std::string_view::npos;
}

struct Span {
  double start = 0;
  double end = 0;
  std::size_t index = 0;
  bool op = false;  // a cpu_op (else a runtime launch)
};

}  // namespace

std::string kineto_string(const nlohmann::json& e, std::string_view key) {
  if (!e.is_object()) return {};
  const auto it = e.find(key);
  return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const nlohmann::json* kineto_args(const nlohmann::json& e) {
  if (!e.is_object()) return nullptr;
  const auto it = e.find("args");
  return it != e.end() && it->is_object() ? &*it : nullptr;
}

std::optional<std::int64_t> kineto_id(const nlohmann::json* args, std::string_view key) {
  if (args == nullptr) return std::nullopt;
  std::vector<std::string_view> keys{key};
  if (key == "External id") keys.emplace_back("external id");
  for (const std::string_view k : keys) {
    const auto it = args->find(k);
    if (it != args->end() && it->is_number_integer()) return it->get<std::int64_t>();
  }
  return std::nullopt;
}

bool is_kineto_complete(const nlohmann::json& e, std::initializer_list<std::string_view> cats) {
  if (kineto_string(e, "ph") != "X") return false;
  const std::string cat = lower_view(kineto_string(e, "cat"));
  return std::find(cats.begin(), cats.end(), cat) != cats.end();
}

LaunchIndex::LaunchIndex(const KinetoEvents& events) : events_(events) {
  std::map<std::string, std::vector<Span>> threads;  // one decode per event for both indexes
  for (std::size_t i = 0; i < events.size(); ++i) {
    const nlohmann::json e = events[i];
    const bool launch =
        is_kineto_complete(e, {"cuda_runtime", "runtime", "cuda_driver", "hip_runtime"});
    if (launch) {
      if (const auto c = kineto_id(kineto_args(e), "correlation")) runtime_.emplace(*c, i);
    } else if (is_kineto_complete(e, {"cpu_op", "operator"})) {
      if (const auto x = kineto_id(kineto_args(e), "External id")) cpu_by_external_.emplace(*x, i);
    }
    const bool op = is_kineto_complete(e, {"cpu_op", "operator", "user_annotation"});
    if (!op && !launch) continue;
    double ts = 0, dur = 0;
    if (!number_member(e, "ts", ts) || !number_member(e, "dur", dur) || dur < 0) continue;
    threads[thread_key(e)].push_back({ts, ts + dur, i, op});
  }
  for (auto& [key, spans] : threads) {
    // Ops before launches at the same start; longer (enclosing) ops first.
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
      return std::make_tuple(a.start, !a.op, -a.end, a.index) <
             std::make_tuple(b.start, !b.op, -b.end, b.index);
    });
    std::vector<const Span*> open;
    for (const Span& s : spans) {
      while (!open.empty() && open.back()->end < s.start) open.pop_back();
      if (s.op) {
        open.push_back(&s);
        continue;
      }
      std::vector<std::size_t>& stack = stacks_[s.index];
      for (const Span* o : open) stack.push_back(o->index);
    }
  }
}

KernelLaunch LaunchIndex::launch_of(const nlohmann::json* kernel_args) const {
  KernelLaunch launch;
  if (const auto c = kineto_id(kernel_args, "correlation")) {
    if (const auto it = runtime_.find(*c); it != runtime_.end()) {
      launch.runtime = it->second;
      launch.graph = is_graph_launch(kineto_string(events_[it->second], "name"));
      if (const auto s = stacks_.find(it->second); s != stacks_.end()) launch.stack = s->second;
      return launch;
    }
  }
  if (const auto x = kineto_id(kernel_args, "External id")) {
    if (const auto it = cpu_by_external_.find(*x); it != cpu_by_external_.end()) {
      launch.stack.push_back(it->second);
    }
  }
  return launch;
}

}  // namespace t3sim::workload
