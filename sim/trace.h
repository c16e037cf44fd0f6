// Chrome/Perfetto trace writer ("Trace Event Format" JSON: traceEvents with complete "X" events,
// counter "C" events and process/thread name metadata). Models call it only when tracing is on
// (they hold a nullable pointer), so the hot path pays one branch. Names are interned.
// Contract: json() is deterministic (events in emission order); times are written in µs with
// nanosecond resolution as the format expects.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/units.h"

namespace t3sim {

class TraceWriter {
 public:
  void process_name(int pid, std::string_view name);
  void thread_name(int pid, int tid, std::string_view name);
  void complete(int pid, int tid, std::string_view name, Tick start, Duration dur);
  void counter(int pid, std::string_view name, Tick at, double value);
  size_t size() const { return events_.size(); }
  std::string json() const;

 private:
  struct Ev {
    char ph;
    int pid;
    int tid;
    uint32_t name;
    uint64_t ts_ps;
    uint64_t dur_ps;
    double value;
  };
  uint32_t intern(std::string_view s);
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<Ev> events_;
};

}  // namespace t3sim
