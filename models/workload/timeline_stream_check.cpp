#include "models/workload/timeline_stream_check.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "models/workload/json_stream.h"

namespace t3sim::workload {
namespace {

using json = nlohmann::json;

std::int64_t ns(const json& e, const char* key) {
  const auto it = e.find(key);
  return it != e.end() && it->is_number() ? std::llround(it->get<double>() * 1000.0) : 0;
}

std::int64_t id_of(const json& e, const char* key) {
  const auto it = e.find(key);
  return it != e.end() && it->is_number() ? it->get<std::int64_t>() : 0;
}

std::string str(const json& e, const char* key) {
  const auto it = e.find(key);
  if (it == e.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

bool flag(const json& e, const char* key) {
  const auto it = e.find(key);
  return it != e.end() && it->is_boolean() && it->get<bool>();
}

struct Slice {
  std::int64_t start, end;
  std::string name;
};

using TrackKey = std::pair<std::int64_t, std::int64_t>;
using AsyncKey = std::tuple<std::int64_t, std::string, std::string>;

// A problem of a track or async id stands only if its events stay in order to the end.
struct Track {
  std::vector<Slice> open;  // in order: the slices enclosing the last one
  std::int64_t last_start = 0, last_end = 0;
  bool any = false;
  bool unsorted = false;              // checked from all its slices after a second pass
  std::vector<std::string> problems;  // found in order, reported unless it turns unsorted
  std::vector<Slice> all;             // second pass
};

struct Async {
  std::int64_t last_ts = 0;
  bool any = false;
  char want = 'b';
  bool failed = false;
  std::int64_t failed_ts = 0;
  char failed_ph = 0;
  bool unsorted = false;
  std::vector<std::pair<std::int64_t, char>> all;  // second pass
};

struct Flow {
  std::tuple<std::int64_t, bool, bool> first, last;  // (ts, out, in): least and greatest
  std::size_t count = 0;
};

class Checker {
 public:
  explicit Checker(std::size_t limit) : limit_(limit) {}

  void add(const json& e) {
    if (!e.is_object()) return fail("an event is not an object");
    const std::string ph = str(e, "ph");
    const std::int64_t pid = id_of(e, "pid");
    const std::int64_t tid = id_of(e, "tid");
    const std::int64_t ts = ns(e, "ts");
    if (ph == "M") {
      const std::string name = str(e, "name");
      if (name == "thread_name") named_threads_.insert({pid, tid});
      if (name == "process_name") named_procs_.insert(pid);
      return;
    }
    used_procs_.insert(pid);
    if (ph == "X") {
      used_threads_.insert({pid, tid});
      slice(tracks_[{pid, tid}], {pid, tid}, Slice{ts, ts + ns(e, "dur"), str(e, "name")});
    } else if (ph == "b" || ph == "e") {
      const AsyncKey key{pid, str(e, "cat"), str(e, "id")};
      async(asyncs_[key], ts, ph[0]);
    } else if (ph == "C") {
      counter(pid, str(e, "name"), ts);
    } else if (ph == "s" || ph == "f") {
      v1_flows_[str(e, "cat") + "/" + str(e, "name") + "/" + str(e, "id")] += ph == "s" ? 1 : 2;
    }
    if (e.contains("bind_id"))
      flow(str(e, "bind_id"), {ts, flag(e, "flow_out"), flag(e, "flow_in")});
  }

  bool needs_second_pass() const { return second_pass_; }

  // Second pass: gathers the events of the tracks and async ids that came out of order.
  void add_again(const json& e) {
    if (!e.is_object()) return;
    const std::string ph = str(e, "ph");
    const std::int64_t pid = id_of(e, "pid");
    if (ph == "X") {
      const auto it = tracks_.find({pid, id_of(e, "tid")});
      if (it == tracks_.end() || !it->second.unsorted) return;
      const std::int64_t ts = ns(e, "ts");
      it->second.all.push_back({ts, ts + ns(e, "dur"), str(e, "name")});
    } else if (ph == "b" || ph == "e") {
      const auto it = asyncs_.find({pid, str(e, "cat"), str(e, "id")});
      if (it != asyncs_.end() && it->second.unsorted)
        it->second.all.push_back({ns(e, "ts"), ph[0]});
    }
  }

  std::vector<std::string> finish() {
    for (auto& [key, t] : tracks_) {
      if (t.unsorted) {
        sorted_slices(key, t.all);
      } else {
        for (const std::string& p : t.problems) fail(p);
      }
    }
    for (auto& [key, a] : asyncs_) finish_async(key, a);
    for (const auto& [id, f] : flows_) {
      const bool starts = std::get<1>(f.first);
      if (f.count < 2 || !starts || !std::get<2>(f.last)) {
        fail("flow " + id + " lacks " + (starts ? "an end" : "a start"));
      }
    }
    for (const auto& [id, n] : v1_flows_) {
      if (n != 3) fail("flow " + id + " lacks " + (n == 1 ? "an end" : "a start"));
    }
    for (const auto& t : used_threads_) {
      if (named_threads_.count(t) == 0) {
        fail("track pid " + std::to_string(t.first) + " tid " + std::to_string(t.second) +
             " has no thread_name");
      }
    }
    for (const std::int64_t p : used_procs_) {
      if (named_procs_.count(p) == 0) fail("process " + std::to_string(p) + " has no process_name");
    }
    return std::move(problems_);
  }

  void fail(const std::string& p) {
    if (problems_.size() < limit_) problems_.push_back(p);
  }

 private:
  static std::string overlap(const TrackKey& key, const Slice& s, const Slice& outer) {
    return "pid " + std::to_string(key.first) + " tid " + std::to_string(key.second) + ": slice '" +
           s.name + "' partially overlaps '" + outer.name + "'";
  }

  // Slices arriving in (start, longest first) order are checked against the stack of open ones,
  // as the sorted whole-document check does; the first one out of order sends the track to the
  // second pass.
  void slice(Track& t, const TrackKey& key, Slice s) {
    if (t.unsorted) return;
    if (t.any && (s.start < t.last_start || (s.start == t.last_start && s.end > t.last_end))) {
      t.unsorted = second_pass_ = true;
      t.open.clear();
      return;
    }
    t.any = true;
    t.last_start = s.start;
    t.last_end = s.end;
    while (!t.open.empty() && t.open.back().end <= s.start) t.open.pop_back();
    if (!t.open.empty() && s.end > t.open.back().end && t.problems.size() < limit_) {
      t.problems.push_back(overlap(key, s, t.open.back()));
    }
    t.open.push_back(std::move(s));
  }

  void sorted_slices(const TrackKey& key, std::vector<Slice>& v) {
    std::sort(v.begin(), v.end(), [](const Slice& a, const Slice& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<const Slice*> open;
    for (const Slice& s : v) {
      while (!open.empty() && open.back()->end <= s.start) open.pop_back();
      if (!open.empty() && s.end > open.back()->end) fail(overlap(key, s, *open.back()));
      open.push_back(&s);
    }
  }

  void async(Async& a, std::int64_t ts, char ph) {
    if (a.unsorted) return;
    if (a.any && ts < a.last_ts) {
      a.unsorted = second_pass_ = true;
      return;
    }
    a.any = true;
    a.last_ts = ts;
    if (a.failed) return;
    if (ph != a.want) {
      a.failed = true;
      a.failed_ts = ts;
      a.failed_ph = ph;
      return;
    }
    a.want = a.want == 'b' ? 'e' : 'b';
  }

  void async_fail(const AsyncKey& key, std::int64_t ts, char ph) {
    fail("async id " + std::get<2>(key) + " of pid " + std::to_string(std::get<0>(key)) + ": '" +
         std::string(1, ph) + "' at " + std::to_string(ts) + " ns without its pair");
  }

  void finish_async(const AsyncKey& key, Async& a) {
    if (a.unsorted) {
      std::stable_sort(a.all.begin(), a.all.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      a.want = 'b';
      a.failed = false;
      for (const auto& [ts, ph] : a.all) {
        if (ph != a.want) {
          a.failed = true;
          async_fail(key, ts, ph);
          break;
        }
        a.want = a.want == 'b' ? 'e' : 'b';
      }
    } else if (a.failed) {
      async_fail(key, a.failed_ts, a.failed_ph);
    }
    if (!a.failed && a.want == 'e') fail("async id " + std::get<2>(key) + " never ends");
  }

  void counter(std::int64_t pid, const std::string& name, std::int64_t ts) {
    const auto key = std::make_pair(pid, name);
    const auto it = counter_last_.find(key);
    if (it != counter_last_.end() && ts <= it->second) {
      fail("counter '" + name + "' of pid " + std::to_string(pid) + " goes back in time at " +
           std::to_string(ts) + " ns");
    }
    counter_last_[key] = ts;
  }

  void flow(const std::string& id, std::tuple<std::int64_t, bool, bool> ev) {
    Flow& f = flows_[id];
    if (f.count == 0 || ev < f.first) f.first = ev;
    if (f.count == 0 || f.last < ev) f.last = ev;
    ++f.count;
  }

  std::size_t limit_;
  bool second_pass_ = false;
  std::vector<std::string> problems_;
  std::map<TrackKey, Track> tracks_;
  std::set<TrackKey> named_threads_, used_threads_;
  std::set<std::int64_t> named_procs_, used_procs_;
  std::map<AsyncKey, Async> asyncs_;
  std::map<std::string, Flow> flows_;
  std::map<std::string, int> v1_flows_;
  std::map<std::pair<std::int64_t, std::string>, std::int64_t> counter_last_;
};

}  // namespace

std::vector<std::string> check_timeline_file(const std::filesystem::path& path, std::size_t limit) {
  Checker c(limit);
  const json top =
      stream_json_object(path, "traceEvents", [&](json& e, std::size_t, const json&) { c.add(e); });
  const auto events = top.find("traceEvents");
  if (events == top.end() || !events->is_array() || !events->empty()) {
    c.fail("no \"traceEvents\" array");
    return c.finish();
  }
  if (c.needs_second_pass()) {
    stream_json_object(path, "traceEvents",
                       [&](json& e, std::size_t, const json&) { c.add_again(e); });
  }
  return c.finish();
}

}  // namespace t3sim::workload
