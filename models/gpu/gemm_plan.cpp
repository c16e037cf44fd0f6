#include "models/gpu/gemm_plan.h"

#include <algorithm>
#include <string>

#include "sim/errors.h"

namespace t3sim::gpu {

void check_gemm_counts(const char* who, uint64_t tiles_m, uint64_t tiles_n, uint64_t split_k,
                       uint64_t phases) {
  // Each factor is checked against a bound below 2^32 before it multiplies, so nothing wraps.
  const auto over = [](uint64_t a, uint64_t b, uint64_t limit) {
    return a > limit || b > limit || (a != 0 && b > limit / a);
  };
  std::string why;
  if (over(tiles_m, tiles_n, kMaxWorkGroups) || over(tiles_m * tiles_n, split_k, kMaxWorkGroups)) {
    why = std::to_string(tiles_m) + " x " + std::to_string(tiles_n) + " tiles x split-K " +
          std::to_string(split_k) + " pass the model's " + std::to_string(kMaxWorkGroups) +
          " work-groups";
  } else if (over(tiles_m + tiles_n, phases * split_k, kMaxOperandSlices)) {
    why = std::to_string(tiles_m + tiles_n) + " tile rows and columns x " +
          std::to_string(phases * split_k) + " K phases pass the model's " +
          std::to_string(kMaxOperandSlices) + " operand slices";
  }
  if (!why.empty()) throw ModelError(who, "GEMM beyond the model: " + why);
}

uint64_t GemmPlan::tile_rows(uint32_t t) const {
  const uint64_t r0 = (t % tiles_per_batch()) / tiles_n() * tile_m;
  return std::min<uint64_t>(tile_m, shape.m - r0);
}

uint64_t GemmPlan::tile_cols(uint32_t t) const {
  const uint64_t c0 = t % tiles_n() * tile_n;
  return std::min<uint64_t>(tile_n, shape.n - c0);
}

GemmPlan local_gemm_plan(GemmShape shape, uint32_t elem_bytes, uint32_t tile_m, uint32_t tile_n,
                         uint32_t group_m, int gpu, uint64_t a_addr, uint64_t b_addr,
                         uint64_t c_addr, uint32_t split_k) {
  GemmPlan p;
  p.shape = shape;
  p.elem_bytes = elem_bytes;
  p.tile_m = tile_m;
  p.tile_n = tile_n;
  p.split_k = split_k;
  p.a_addr = a_addr;
  p.b_addr = b_addr;
  p.c_addr = c_addr;
  p.workspace_addr = c_addr + (shape.m * shape.n * shape.batch * elem_bytes + 4095) / 4096 * 4096;
  p.retile = true;
  check_gemm_counts("local_gemm_plan", p.tiles_m(), p.tiles_n(), split_k, 1);
  const auto n = static_cast<uint32_t>(p.tiles());
  p.stores.resize(n);
  for (uint64_t b = 0; b < p.batch(); ++b) {  // products one after another, each grouped
    const size_t first = p.order.size();
    append_grouped_order(p.order, static_cast<uint32_t>(p.tiles_n()), 0,
                         static_cast<uint32_t>(p.tiles_m()), group_m);
    for (size_t i = first; i < p.order.size(); ++i) {
      p.order[i] += static_cast<uint32_t>(b * p.tiles_per_batch());
    }
  }
  uint64_t addr = c_addr;
  for (uint32_t t = 0; t < n; ++t) {
    p.stores[t] = TileStore{
        gpu, addr, common::MemCmd::kWrite, common::TrafficClass::kGemmWrite, common::kNoTile, true};
    addr += p.tile_bytes(t);
  }
  return p;
}

void append_grouped_order(std::vector<uint32_t>& order, uint32_t tiles_n, uint32_t row_begin,
                          uint32_t row_end, uint32_t group_m) {
  for (uint32_t g = row_begin; g < row_end; g += group_m) {
    const uint32_t g_end = std::min(row_end, g + group_m);
    for (uint32_t c = 0; c < tiles_n; ++c) {
      for (uint32_t r = g; r < g_end; ++r) order.push_back(r * tiles_n + c);
    }
  }
}

}  // namespace t3sim::gpu
