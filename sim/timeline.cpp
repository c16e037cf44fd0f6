// Recording side of the timeline (sim/timeline.h): names, tracks and their lanes, counters, the
// event cap. The JSON writer is timeline_json.cpp.
#include "sim/timeline.h"

#include <algorithm>

namespace t3sim {

uint32_t Timeline::intern(std::string_view s) {
  auto it = ids_.find(std::string(s));
  if (it != ids_.end()) return it->second;
  names_.emplace_back(s);
  const auto id = static_cast<uint32_t>(names_.size() - 1);
  ids_.emplace(names_.back(), id);
  return id;
}

void Timeline::process(int pid, std::string_view name) { procs_.emplace_back(pid, intern(name)); }

uint32_t Timeline::track(int pid, std::string_view name) {
  std::string key = std::to_string(pid) + '/';
  key += name;
  auto it = track_ids_.find(key);
  if (it != track_ids_.end()) return it->second;
  tracks_.push_back(Track{pid, intern(name), {}, {}});
  const auto id = static_cast<uint32_t>(tracks_.size() - 1);
  track_ids_.emplace(std::move(key), id);
  return id;
}

uint32_t Timeline::counter(int pid, std::string_view name) {
  std::string key = std::to_string(pid) + '/';
  key += name;
  auto it = counter_ids_.find(key);
  if (it != counter_ids_.end()) return it->second;
  counters_.push_back(Counter{pid, intern(name), false, {}});
  const auto id = static_cast<uint32_t>(counters_.size() - 1);
  counter_ids_.emplace(std::move(key), id);
  return id;
}

// The first lane whose last slice ended by `start`; a new lane (a thread track, or an async id)
// when every lane is still busy. Slices arrive in end order, so a lane never holds an overlap.
uint32_t Timeline::lane(Track& t, uint64_t start_ps, uint64_t end_ps, bool async) {
  for (size_t l = 0; l < t.lane_end_ps.size(); ++l) {
    if (t.lane_end_ps[l] <= start_ps) {
      t.lane_end_ps[l] = end_ps;
      return t.lane_tid[l];
    }
  }
  t.lane_end_ps.push_back(end_ps);
  if (async) {
    t.lane_tid.push_back(++next_async_);
    return t.lane_tid.back();
  }
  const auto tid = static_cast<uint32_t>(threads_.size() + 1);
  uint32_t name = t.name;
  if (t.lane_tid.size() > 0) {
    name = intern(names_[t.name] + " #" + std::to_string(t.lane_tid.size() + 1));
  }
  threads_.push_back(Thread{t.pid, tid, name});
  t.lane_tid.push_back(tid);
  return tid;
}

bool Timeline::full() {
  if (events_.size() < opt_.max_events) return false;
  ++dropped_;
  return true;
}

void Timeline::slice(uint32_t track, std::string_view name, Tick start, Tick end, uint64_t flow,
                     FlowRole role) {
  Track& t = tracks_[track];
  if (!detailed(t.pid) || full()) return;
  const uint32_t tid = lane(t, start.ps(), end.ps(), false);
  events_.push_back(Ev{'X', t.pid, tid, intern(name), start.ps(), end.ps(), 0, flow, role});
}

void Timeline::async(uint32_t track, std::string_view name, Tick start, Tick end, uint64_t flow,
                     FlowRole role) {
  Track& t = tracks_[track];
  if (!detailed(t.pid) || full()) return;
  const uint32_t id = lane(t, start.ps(), end.ps(), true);
  events_.push_back(Ev{'b', t.pid, id, t.name, start.ps(), end.ps(), 0, flow, role});
  events_.back().value = static_cast<double>(intern(name));  // the label, shown in args
}

void Timeline::level(uint32_t counter, Tick at, double value) {
  Counter& c = counters_[counter];
  // Several changes within one nanosecond (the trace's resolution): only the last is visible, so it
  // replaces the others and the samples keep rising in time.
  if (c.last != SIZE_MAX && events_[c.last].ts_ps / 1000 == at.ps() / 1000) {
    events_[c.last].value = value;
    return;
  }
  if (full()) return;
  c.last = events_.size();
  events_.push_back(Ev{'C', c.pid, counter, c.name, at.ps(), at.ps(), value, 0, FlowRole::kNone});
}

// Spreads `bytes` evenly over [start, end) across the bins it covers.
void Timeline::bytes(uint32_t counter, Tick start, Tick end, uint64_t bytes) {
  Counter& c = counters_[counter];
  c.bandwidth = true;
  const uint64_t bin = std::max<uint64_t>(1, opt_.bin.count_ps());
  const uint64_t s = start.ps();
  const uint64_t e = std::max(end.ps(), s + 1);
  const uint64_t last = (e - 1) / bin;
  if (c.bins.size() <= last) c.bins.resize(last + 1, 0.0);
  const double per_ps = static_cast<double>(bytes) / static_cast<double>(e - s);
  for (uint64_t b = s / bin; b <= last; ++b) {
    const uint64_t lo = std::max(s, b * bin);
    const uint64_t hi = std::min(e, (b + 1) * bin);
    c.bins[b] += per_ps * static_cast<double>(hi - lo);
  }
}

}  // namespace t3sim
