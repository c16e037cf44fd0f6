// Writing side of the timeline (sim/timeline.h): Chrome Trace Event JSON in µs with nanosecond
// resolution. Names first (process, thread and sort-index metadata), then the recorded events in
// emission order, then the bandwidth counters bin by bin. A flow keeps its arrows only when at
// least two of its events were recorded, one that can start it and one that can end it.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/timeline.h"

namespace t3sim {
namespace {

// Microseconds with nanosecond resolution, truncated (not rounded) to the nanosecond, so that
// times keep their order and the recorder's per-nanosecond merging matches what is written.
std::string us(uint64_t ps) { return fmt::format("{}.{:03}", ps / 1'000'000, ps / 1000 % 1000); }

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

bool can_start(FlowRole r) { return r == FlowRole::kOut || r == FlowRole::kThrough; }
bool can_end(FlowRole r) { return r == FlowRole::kIn || r == FlowRole::kThrough; }

std::string flow_fields(uint64_t flow, FlowRole role) {
  std::string s = ",\"bind_id\":\"0x" + fmt::format("{:x}", flow) + "\"";
  if (can_start(role)) s += ",\"flow_out\":true";
  if (can_end(role)) s += ",\"flow_in\":true";
  return s;
}

}  // namespace

void Timeline::write_event(std::string& out, const Ev& e,
                           const std::vector<uint8_t>& flow_ok) const {
  const std::string head =
      ",\"pid\":" + std::to_string(e.pid) + ",\"name\":" + quoted(names_[e.name]);
  const bool flow = e.flow != 0 && flow_ok[e.flow] != 0;
  if (e.ph == 'X') {
    out += ",\n{\"ph\":\"X\",\"tid\":" + std::to_string(e.tid) + head + ",\"ts\":" + us(e.ts_ps) +
           ",\"dur\":" + us(e.end_ps / 1000 * 1000 - e.ts_ps / 1000 * 1000) +
           (flow ? flow_fields(e.flow, e.role) : "") + "}";
  } else if (e.ph == 'b') {
    const std::string id = ",\"cat\":\"transfer\",\"id\":\"0x" + fmt::format("{:x}", e.tid) + "\"";
    const std::string what = quoted(names_[static_cast<size_t>(e.value)]);
    out += ",\n{\"ph\":\"b\"" + id + head + ",\"ts\":" + us(e.ts_ps) +
           ",\"args\":{\"what\":" + what + "}" + (flow ? flow_fields(e.flow, e.role) : "") + "}";
    out += ",\n{\"ph\":\"e\"" + id + head + ",\"ts\":" + us(e.end_ps) + "}";
  } else {
    out += ",\n{\"ph\":\"C\"" + head + ",\"ts\":" + us(e.ts_ps) +
           ",\"args\":{\"value\":" + num(e.value) + "}}";
  }
}

// Bandwidth counters: bins merge k at a time so that all of them fit the counter budget; a sample
// is written only where the value changes, and every counter ends at zero.
void Timeline::write_counters(std::string& out) const {
  uint64_t total = 0;
  for (const Counter& c : counters_) total += c.bins.size();
  const uint64_t k = std::max<uint64_t>(
      1, (total + opt_.counter_points - 1) / std::max<uint64_t>(1, opt_.counter_points));
  const double bin_ps = static_cast<double>(std::max<uint64_t>(1, opt_.bin.count_ps()) * k);
  for (const Counter& c : counters_) {
    if (!c.bandwidth) continue;
    const std::string head =
        ",\n{\"ph\":\"C\",\"pid\":" + std::to_string(c.pid) + ",\"name\":" + quoted(names_[c.name]);
    double last = -1;
    const size_t merged = (c.bins.size() + k - 1) / k;
    for (size_t m = 0; m <= merged; ++m) {
      double sum = 0;
      for (size_t b = m * k; b < std::min(c.bins.size(), (m + 1) * k); ++b) sum += c.bins[b];
      const double gbps = sum / bin_ps * 1e3;  // bytes/ps = 1e12 B/s = 1e3 GB/s
      if (gbps == last) continue;
      last = gbps;
      out += head + ",\"ts\":" + us(static_cast<uint64_t>(static_cast<double>(m) * bin_ps)) +
             ",\"args\":{\"value\":" + num(gbps) + "}}";
    }
  }
}

std::string Timeline::json() const {
  std::vector<uint8_t> starts(flows_ + 1, 0), ends(flows_ + 1, 0), count(flows_ + 1, 0);
  for (const Ev& e : events_) {
    if (e.flow == 0) continue;
    starts[e.flow] |= can_start(e.role) ? 1 : 0;
    ends[e.flow] |= can_end(e.role) ? 1 : 0;
    count[e.flow] = static_cast<uint8_t>(std::min(2, count[e.flow] + 1));
  }
  std::vector<uint8_t> ok(flows_ + 1, 0);
  for (size_t f = 1; f <= flows_; ++f) ok[f] = starts[f] && ends[f] && count[f] == 2 ? 1 : 0;

  std::string out =
      "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"recorded\":" + std::to_string(events_.size()) +
      ",\"dropped\":" + std::to_string(dropped_) +
      ",\"bin_ps\":" + std::to_string(opt_.bin.count_ps()) +
      ",\"detail_gpus\":" + std::to_string(opt_.detail_gpus) + "},\"traceEvents\":[";
  const size_t first = out.size();
  for (const auto& [pid, name] : procs_) {
    out += ",\n{\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
           ",\"name\":\"process_name\",\"args\":{\"name\":" + quoted(names_[name]) + "}}";
    out += ",\n{\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
           ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":" + std::to_string(pid) +
           "}}";
  }
  for (const Thread& t : threads_) {
    const std::string ids =
        ",\"pid\":" + std::to_string(t.pid) + ",\"tid\":" + std::to_string(t.tid);
    out += ",\n{\"ph\":\"M\"" + ids +
           ",\"name\":\"thread_name\",\"args\":{\"name\":" + quoted(names_[t.name]) + "}}";
    out += ",\n{\"ph\":\"M\"" + ids +
           ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":" + std::to_string(t.tid) +
           "}}";
  }
  for (const Ev& e : events_) write_event(out, e, ok);
  write_counters(out);
  if (out.size() > first) out.erase(first, 1);  // every event opened with ",\n"
  out += "\n]}\n";
  return out;
}

}  // namespace t3sim
