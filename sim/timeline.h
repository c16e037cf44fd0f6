// Timeline recorder: a Perfetto-readable Chrome Trace Event JSON of one run. Processes are GPUs
// (and the fabric); each resource is a named track: complete slices ("X") for things that hold a
// resource one at a time, async slices ("b"/"e") for transfers that overlap on one resource,
// counters ("C") for levels (queue occupancy) and for bandwidth binned over time, and flow arrows
// (bind_id, flow_out/flow_in) that chain a trigger to the transfer it starts and to its landing.
// Models hold no recorder: they ask sim().timeline() (null when off, so the disabled cost is one
// branch and no allocation). Contract: no two complete slices of one track overlap (an overlapping
// slice spills into the track's next lane); every flow written has both ends; every counter's
// samples rise in time; the size stays bounded by the options (detail GPUs, event cap, counter
// budget). json() is deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/units.h"

namespace t3sim {

struct TimelineOptions {
  Duration bin = Duration::us(1);     // bandwidth counters: bytes summed over bins this long
  int detail_gpus = 8;                // slices and flows for GPUs 0..detail_gpus-1 (counters: all)
  uint64_t max_events = 500'000;      // slices, flows and levels kept; later ones are counted only
  uint64_t counter_points = 300'000;  // bins merge until all bandwidth counters fit this many
};

// Role of a slice in a flow: kOut starts an arrow, kIn ends one, kThrough does both.
enum class FlowRole : uint8_t { kNone, kOut, kIn, kThrough };

class Timeline {
 public:
  static constexpr int kFabricPid = 1'000'000;  // the fabric's own process (switch links)

  explicit Timeline(TimelineOptions opt = {}) : opt_(opt) {}
  const TimelineOptions& options() const { return opt_; }
  // Whether slices of this process are recorded (counters always are).
  bool detailed(int pid) const { return pid < opt_.detail_gpus || pid == kFabricPid; }

  void process(int pid, std::string_view name);
  // A named track of `pid` (created on first use, then looked up).
  uint32_t track(int pid, std::string_view name);
  // A named counter of `pid`: level() values or bytes() binned into GB/s.
  uint32_t counter(int pid, std::string_view name);

  void slice(uint32_t track, std::string_view name, Tick start, Tick end, uint64_t flow = 0,
             FlowRole role = FlowRole::kNone);
  void async(uint32_t track, std::string_view name, Tick start, Tick end, uint64_t flow = 0,
             FlowRole role = FlowRole::kNone);
  void level(uint32_t counter, Tick at, double value);
  void bytes(uint32_t counter, Tick start, Tick end, uint64_t bytes);
  uint64_t new_flow() { return ++flows_; }

  uint64_t recorded() const { return events_.size(); }
  uint64_t dropped() const { return dropped_; }
  std::string json() const;

 private:
  struct Track {
    int pid;
    uint32_t name;
    std::vector<uint64_t> lane_end_ps;  // last end per lane
    std::vector<uint32_t> lane_tid;
  };
  struct Counter {
    int pid;
    uint32_t name;
    bool bandwidth = false;
    std::vector<double> bins;  // bytes per bin (bandwidth counters)
    size_t last = SIZE_MAX;    // index of its last level event
  };
  struct Ev {
    char ph;  // 'X', 'b' (with its 'e'), 'C'
    int pid;
    uint32_t tid;  // thread (X), async id (b), counter index (C)
    uint32_t name;
    uint64_t ts_ps;
    uint64_t end_ps;
    double value;
    uint64_t flow;
    FlowRole role;
  };
  struct Thread {
    int pid;
    uint32_t tid;
    uint32_t name;
  };
  uint32_t intern(std::string_view s);
  uint32_t lane(Track& t, uint64_t start_ps, uint64_t end_ps, bool async);
  bool full();
  void write_event(std::string& out, const Ev& e, const std::vector<uint8_t>& flow_ok) const;
  void write_counters(std::string& out) const;

  TimelineOptions opt_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::unordered_map<std::string, uint32_t> track_ids_;    // "pid/name"
  std::unordered_map<std::string, uint32_t> counter_ids_;  // "pid/name"
  std::vector<Track> tracks_;
  std::vector<Counter> counters_;
  std::vector<Thread> threads_;                  // named thread tracks (lanes of slices)
  std::vector<std::pair<int, uint32_t>> procs_;  // pid, name
  std::vector<Ev> events_;
  uint64_t flows_ = 0;
  uint64_t dropped_ = 0;
  uint32_t next_async_ = 0;
};

}  // namespace t3sim
