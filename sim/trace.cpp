#include "sim/trace.h"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace t3sim {

uint32_t TraceWriter::intern(std::string_view s) {
  auto it = ids_.find(std::string(s));
  if (it != ids_.end()) return it->second;
  names_.emplace_back(s);
  const auto id = static_cast<uint32_t>(names_.size() - 1);
  ids_.emplace(names_.back(), id);
  return id;
}

void TraceWriter::process_name(int pid, std::string_view name) {
  events_.push_back({'p', pid, 0, intern(name), 0, 0, 0});
}

void TraceWriter::thread_name(int pid, int tid, std::string_view name) {
  events_.push_back({'t', pid, tid, intern(name), 0, 0, 0});
}

void TraceWriter::complete(int pid, int tid, std::string_view name, Tick start, Duration dur) {
  events_.push_back({'X', pid, tid, intern(name), start.ps(), dur.count_ps(), 0});
}

void TraceWriter::counter(int pid, std::string_view name, Tick at, double value) {
  events_.push_back({'C', pid, 0, intern(name), at.ps(), 0, value});
}

std::string TraceWriter::json() const {
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  char buf[96];
  for (size_t i = 0; i < events_.size(); ++i) {
    const Ev& e = events_[i];
    const std::string name = nlohmann::json(names_[e.name]).dump();
    if (i != 0) out += ",\n";
    if (e.ph == 'p' || e.ph == 't') {
      out += "{\"ph\":\"M\",\"pid\":" + std::to_string(e.pid) +
             ",\"tid\":" + std::to_string(e.tid) + ",\"name\":\"" +
             (e.ph == 'p' ? "process_name" : "thread_name") + "\",\"args\":{\"name\":" + name +
             "}}";
      continue;
    }
    std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(e.ts_ps) / 1e6);
    out += "{\"ph\":\"";
    out += e.ph;
    out += "\",\"pid\":" + std::to_string(e.pid) + ",\"tid\":" + std::to_string(e.tid) +
           ",\"name\":" + name + ",\"ts\":" + buf;
    if (e.ph == 'X') {
      std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(e.dur_ps) / 1e6);
      out += std::string(",\"dur\":") + buf + "}";
    } else {
      std::snprintf(buf, sizeof buf, "%.6g", e.value);
      out += ",\"args\":{\"value\":" + std::string(buf) + "}}";
    }
  }
  out += "\n]}\n";
  return out;
}

}  // namespace t3sim
