// DMA (copy) engines of one GPU: each engine takes descriptors from its queue in order, pays a
// setup latency, then moves the data in chunks: read from local HBM (a MemStream access), send the
// chunk to the destination GPU as a WRITE or NMC UPDATE (RemoteMemory), with at most `window`
// bytes in flight (one chunk may start when none is) and chunk starts paced at the engine's
// bandwidth; the window is a size, so the chunk is a granularity alone. T3's triggered transfers
// and the DMA-based collectives use this. Source: T3 §3.4 (reuses the GPU's DMA engines); engine
// count/bandwidth/setup are unknown in T3 and chosen per preset (t3-paper.md §9 item 3).
// Contract: submit() never refuses (descriptor queues are unbounded but counted); each descriptor
// completes exactly once via AccessDone when all its chunks have landed at the destination.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "models/gpu/mem_stream.h"
#include "models/gpu/remote_memory.h"
#include "sim/component.h"
#include "sim/params.h"

namespace t3sim::gpu {

struct DmaDescriptor {
  uint64_t src_addr = 0;
  int dst_gpu = 0;
  uint64_t dst_addr = 0;
  uint64_t bytes = 0;
  common::MemCmd dst_cmd = common::MemCmd::kWrite;
  common::TrafficClass read_cls = common::TrafficClass::kRsRead;
  common::TrafficClass write_cls = common::TrafficClass::kRsWrite;
  uint32_t dst_tile = common::kNoTile;
  uint16_t contrib = 1;
  AccessDone* done = nullptr;
  uint64_t tag = 0;
  uint64_t flow = 0;           // timeline flow arrow (sim/timeline.h), 0 = none
  uint16_t switch_copies = 0;  // > 0: each chunk is a copy for an in-switch reduction
  common::L2Policy l2 = common::L2Policy::kDefault;  // how its local reads allocate in the L2
};

struct DmaSpec {
  uint32_t engines = 1;
  Bandwidth bandwidth;  // per engine
  Duration setup;
  Bytes chunk;
  Bytes window;  // bytes in flight per engine
};
Params dma_params();
DmaSpec bind_dma(const ConfigNode& node);

class DmaEngines : public Component, public AccessDone {
 public:
  DmaEngines(Simulator& sim, Component* parent, std::string name, int gpu, const DmaSpec& spec,
             MemStream& local_reads, RemoteMemory& remote);
  void submit(const DmaDescriptor& d);
  size_t outstanding() const { return live_; }
  void access_done(uint64_t tag) override;
  void finish() override;

 private:
  struct Engine {
    std::deque<uint32_t> queue;  // descriptor slots
    Tick next_start{};           // pacing: earliest start of the next chunk
    uint64_t in_flight_bytes = 0;
    bool wake_pending = false;
  };
  struct Desc {
    DmaDescriptor d;
    uint64_t started = 0;  // bytes whose chunk has started
    uint64_t landed = 0;
    uint32_t engine = 0;
    Tick ready{};  // after setup
    Tick first{};  // first chunk start (tracing)
  };
  void pump(uint64_t engine);
  void pump_at(uint64_t engine);
  uint32_t alloc();

  int gpu_;
  DmaSpec spec_;
  MemStream& reads_;
  RemoteMemory& remote_;
  std::vector<Engine> engines_;
  std::vector<Desc> descs_;
  std::vector<uint32_t> free_;
  uint32_t next_engine_ = 0;
  size_t live_ = 0;
  Counter descriptors_;
  Counter bytes_;
  Accumulator queue_wait_ns_;
};

}  // namespace t3sim::gpu
