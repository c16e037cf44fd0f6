// CopyKernel: a memory-streaming kernel on a few SMs (a copy, a read-only sweep or a reduction
// c = a + b), the co-runner of a GEMM in contention experiments and the model of a copy engine's
// D2D copy. Each lane (a CTA on one SM, or a copy engine's queue) works through its share of the
// arrays one chunk at a time: it reads the chunk from each input array, then writes it to the
// output array (when the pattern writes), then pauses for `pause` (a paced kernel's sleep) and
// takes its next chunk. All lanes issue through one MemStream of the GPU, so the kernel's
// bandwidth emerges from its bytes in flight (lanes x chunk x inputs) and from the memory system.
// Contract: start() once; stop() ends it after the chunks in flight (a kernel without a byte
// count runs until stopped); done() when every lane has stopped. Counts bytes moved.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "models/gpu/mem_stream.h"
#include "sim/component.h"
#include "sim/stats.h"

namespace t3sim::gpu {

struct CopyPattern {
  uint32_t lanes = 1;          // CTAs (one per SM) or copy-engine queues
  uint64_t chunk = 64 * 1024;  // bytes per lane per step (its loads in flight)
  uint32_t inputs = 1;         // arrays read per chunk (copy/read 1, reduction 2)
  bool writes = true;          // writes the output array (read-only sweep: false)
  Duration pause;              // sleep after each chunk (paced kernels)
  uint64_t array_bytes = 0;    // bytes of each array (each lane sweeps its share, wrapping)
  uint64_t total_bytes = 0;    // bytes of output (or of reads, read-only) to move; 0: until stop
  bool evict_first = false;    // loads and stores with evict-first hints (l2_residency.h)
};

class CopyKernel : public Component, public AccessDone {
 public:
  // `bases`: the input arrays' addresses then (if it writes) the output array's.
  CopyKernel(Simulator& sim, Component* parent, std::string name, MemStream& stream,
             const CopyPattern& pattern, std::vector<uint64_t> bases);
  void start();
  void stop() { stopping_ = true; }
  // Called once when the last lane stops (before done() is read by others).
  void on_done(std::function<void()> f) { on_done_ = std::move(f); }
  bool done() const { return lanes_left_ == 0 && started_; }
  Tick finished_at() const { return finished_at_; }
  Tick started_at() const { return started_at_; }
  uint64_t bytes_moved() const { return moved_.value(); }
  void access_done(uint64_t tag) override;

 private:
  struct Lane {
    uint64_t step = 0;  // chunks begun
    uint32_t outstanding = 0;
    bool writing = false;
  };
  void next_chunk(uint64_t lane);
  uint64_t chunk_offset(uint32_t lane, uint64_t step) const;
  void issue(uint32_t lane, uint64_t addr, common::MemCmd cmd);

  MemStream& stream_;
  CopyPattern p_;
  std::vector<uint64_t> bases_;
  std::vector<Lane> lanes_;
  uint64_t per_lane_ = 0;    // bytes of each array a lane sweeps
  uint64_t lane_steps_ = 0;  // chunks per lane for total_bytes (0: until stopped)
  uint32_t lanes_left_ = 0;
  bool started_ = false;
  bool stopping_ = false;
  Tick started_at_{};
  Tick finished_at_{};
  Counter moved_;
  std::function<void()> on_done_;
};

}  // namespace t3sim::gpu
