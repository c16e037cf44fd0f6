// Starting the TP group's collectives from the sublayer runner: a thin adapter over
// models/collectives so the mode runners speak in (operation, executor, bytes, buffers).
// Contract: `then` runs exactly once, when the collective has completed on every GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "models/system/scenario.h"
#include "models/system/sublayer.h"

namespace t3sim::system {

class CollectiveRun {
 public:
  virtual ~CollectiveRun() = default;
  virtual Tick started() const = 0;
  virtual Tick finished() const = 0;
};

// `bytes` is the full per-GPU buffer (nccl-tests size) of `elem_bytes`-byte elements;
// `channels` = 0 uses the library default.
std::unique_ptr<CollectiveRun> launch_collective(Scenario& sc, CollOp op, CollExec exec,
                                                 uint64_t bytes, uint32_t elem_bytes,
                                                 const std::vector<uint64_t>& addrs,
                                                 uint32_t channels, std::function<void()> then);

// Channels (CUs) the library's CU executor uses by default on this system.
uint32_t default_channels(Scenario& sc);

}  // namespace t3sim::system
