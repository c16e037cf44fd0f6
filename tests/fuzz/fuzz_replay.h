// What the fuzz targets that replay traces (fuzz_simulate, fuzz_roundtrip) accept as quick enough
// to simulate, and the bound every simulated time must stay under.
#pragma once

#include <cstddef>
#include <cstdint>

#include "models/workload/trace.h"

namespace t3sim::fuzz {

constexpr size_t kMaxOps = 8;
constexpr int64_t kMaxFlops = int64_t{1} << 27;  // 2 x 256 x 512 x 512
constexpr int64_t kMaxBytes = int64_t{1} << 20;
constexpr double kYearUs = 3.2e13;  // a finished run's times stay below a year (no sentinel)

// At most kMaxOps ops, GEMMs of at most 4096 per dimension, batch 16 and kMaxFlops, transfers of
// at most kMaxBytes: such a trace replays in well under a second.
inline bool tiny(const workload::Trace& t) {
  if (t.ops.size() > kMaxOps) return false;
  for (const auto& op : t.ops) {
    const auto& s = op.shape;
    if (op.kind == workload::OpKind::kGemm) {
      if (s.m > 4096 || s.n > 4096 || s.k > 4096 || s.batch > 16) return false;
      if (2 * s.m * s.n * s.k * s.batch > kMaxFlops) return false;
    } else if (op.bytes > kMaxBytes) {
      return false;
    }
  }
  return true;
}

}  // namespace t3sim::fuzz
