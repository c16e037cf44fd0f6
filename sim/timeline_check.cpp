#include "sim/timeline_check.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace t3sim {
namespace {

int64_t ns(const nlohmann::json& v) {
  return v.is_number() ? std::llround(v.get<double>() * 1000.0) : 0;
}

std::string str(const nlohmann::json& e, const char* key) {
  if (!e.contains(key)) return "";
  return e[key].is_string() ? e[key].get<std::string>() : e[key].dump();
}

struct Slice {
  int64_t start, end;
  std::string name;
};

struct Checker {
  std::vector<std::string> problems;
  size_t limit;
  void fail(const std::string& p) {
    if (problems.size() < limit) problems.push_back(p);
  }

  void slices(std::map<std::pair<int64_t, int64_t>, std::vector<Slice>>& tracks) {
    for (auto& [key, v] : tracks) {
      std::sort(v.begin(), v.end(), [](const Slice& a, const Slice& b) {
        return a.start != b.start ? a.start < b.start : a.end > b.end;
      });
      std::vector<const Slice*> open;
      for (const Slice& s : v) {
        while (!open.empty() && open.back()->end <= s.start) open.pop_back();
        if (!open.empty() && s.end > open.back()->end) {
          fail("pid " + std::to_string(key.first) + " tid " + std::to_string(key.second) +
               ": slice '" + s.name + "' partially overlaps '" + open.back()->name + "'");
        }
        open.push_back(&s);
      }
    }
  }
};

}  // namespace

std::vector<std::string> check_timeline(const nlohmann::json& trace, size_t limit) {
  Checker c{{}, limit};
  if (!trace.is_object() || !trace.contains("traceEvents") || !trace["traceEvents"].is_array()) {
    c.fail("no \"traceEvents\" array");
    return c.problems;
  }
  std::map<std::pair<int64_t, int64_t>, std::vector<Slice>> tracks;
  std::set<std::pair<int64_t, int64_t>> named_threads, used_threads;
  std::set<int64_t> named_procs, used_procs;
  std::map<std::tuple<int64_t, std::string, std::string>, std::vector<std::pair<int64_t, char>>>
      asyncs;
  std::map<std::string, std::vector<std::tuple<int64_t, bool, bool>>> flows;  // ts, out, in
  std::map<std::string, int> v1_flows;
  std::map<std::pair<int64_t, std::string>, int64_t> counter_last;
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = str(e, "ph");
    const int64_t pid = e.value("pid", int64_t{0});
    const int64_t tid = e.value("tid", int64_t{0});
    const int64_t ts = ns(e.value("ts", nlohmann::json(0)));
    if (ph == "M") {
      if (str(e, "name") == "thread_name") named_threads.insert({pid, tid});
      if (str(e, "name") == "process_name") named_procs.insert(pid);
      continue;
    }
    used_procs.insert(pid);
    if (ph == "X") {
      used_threads.insert({pid, tid});
      tracks[{pid, tid}].push_back(
          Slice{ts, ts + ns(e.value("dur", nlohmann::json(0))), str(e, "name")});
    } else if (ph == "b" || ph == "e") {
      asyncs[{pid, str(e, "cat"), str(e, "id")}].push_back({ts, ph[0]});
    } else if (ph == "C") {
      const auto key = std::make_pair(pid, str(e, "name"));
      auto it = counter_last.find(key);
      if (it != counter_last.end() && ts <= it->second) {
        c.fail("counter '" + key.second + "' of pid " + std::to_string(pid) +
               " goes back in time at " + std::to_string(ts) + " ns");
      }
      counter_last[key] = ts;
    } else if (ph == "s" || ph == "f") {
      v1_flows[str(e, "cat") + "/" + str(e, "name") + "/" + str(e, "id")] += ph == "s" ? 1 : 2;
    }
    if (e.contains("bind_id")) {
      flows[str(e, "bind_id")].emplace_back(ts, e.value("flow_out", false),
                                            e.value("flow_in", false));
    }
  }
  c.slices(tracks);
  for (auto& [key, evs] : asyncs) {
    std::stable_sort(evs.begin(), evs.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    char want = 'b';
    for (const auto& [ts, ph] : evs) {
      if (ph != want) {
        c.fail("async id " + std::get<2>(key) + " of pid " + std::to_string(std::get<0>(key)) +
               ": '" + std::string(1, ph) + "' at " + std::to_string(ts) + " ns without its pair");
        break;
      }
      want = want == 'b' ? 'e' : 'b';
    }
    if (want == 'e') c.fail("async id " + std::get<2>(key) + " never ends");
  }
  for (auto& [id, evs] : flows) {
    std::stable_sort(evs.begin(), evs.end());
    const bool starts = std::get<1>(evs.front());
    const bool ends = std::get<2>(evs.back());
    if (evs.size() < 2 || !starts || !ends) {
      c.fail("flow " + id + " lacks " + (starts ? "an end" : "a start"));
    }
  }
  for (const auto& [id, n] : v1_flows) {
    if (n != 3) c.fail("flow " + id + " lacks " + (n == 1 ? "an end" : "a start"));
  }
  for (const auto& t : used_threads) {
    if (named_threads.count(t) == 0) {
      c.fail("track pid " + std::to_string(t.first) + " tid " + std::to_string(t.second) +
             " has no thread_name");
    }
  }
  for (const int64_t p : used_procs) {
    if (named_procs.count(p) == 0) c.fail("process " + std::to_string(p) + " has no process_name");
  }
  return c.problems;
}

}  // namespace t3sim
