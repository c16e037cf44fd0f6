#include "models/t3/fused_plan.h"

#include "sim/errors.h"

namespace t3sim::t3 {
namespace {

using common::MemCmd;
using common::TrafficClass;

struct Layout {
  gpu::GemmPlan proto;
  std::vector<uint64_t> offset;  // tile-major byte offset of each tile in the output
  uint32_t rows_per_chunk = 0;
};

Layout make_layout(const FusedInput& in, uint32_t n) {
  Layout l;
  l.proto.shape = in.shape;
  l.proto.elem_bytes = in.elem_bytes;
  l.proto.tile_m = in.tile_m;
  l.proto.tile_n = in.tile_n;
  const uint32_t tiles = l.proto.tiles();
  if (l.proto.tiles_m() % n != 0) {
    throw ConfigError("", "/tokens", "T3 needs whole tile rows per chunk: " +
                                         std::to_string(l.proto.tiles_m()) + " tile rows over " +
                                         std::to_string(n) + " GPUs (choose tokens divisible by " +
                                         std::to_string(n * in.tile_m) + ")");
  }
  l.rows_per_chunk = l.proto.tiles_m() / n;
  l.offset.resize(tiles);
  uint64_t off = 0;
  for (uint32_t t = 0; t < tiles; ++t) {
    l.offset[t] = off;
    off += l.proto.tile_bytes(t);
  }
  return l;
}

void for_chunk(const Layout& l, uint32_t chunk, auto&& f) {
  const uint32_t tn = l.proto.tiles_n();
  for (uint32_t r = chunk * l.rows_per_chunk; r < (chunk + 1) * l.rows_per_chunk; ++r) {
    for (uint32_t c = 0; c < tn; ++c) f(r * tn + c);
  }
}

gpu::GemmPlan base_plan(const FusedInput& in, const Layout& l, size_t pos) {
  gpu::GemmPlan p = l.proto;
  p.a_addr = in.a_addr[pos];
  p.b_addr = in.b_addr[pos];
  p.stores.resize(p.tiles());
  return p;
}

}  // namespace

uint32_t chunk_compatible_tile_m(uint64_t m, uint32_t n, uint32_t preferred) {
  if (m % n != 0) {
    throw ConfigError("", "/tokens", "tokens (" + std::to_string(m) + ") must be divisible by the " +
                                         std::to_string(n) + " GPUs of the reduce-scatter");
  }
  const uint64_t rows = m / n;
  for (uint32_t t = preferred; t >= 16; t /= 2) {
    if (rows % t == 0) return t;
  }
  throw ConfigError("", "/tokens", "tokens/GPUs = " + std::to_string(rows) +
                                       " rows per chunk is not a multiple of 16 (choose tokens "
                                       "divisible by " + std::to_string(16 * n) + ")");
}

std::vector<GpuFusedPlan> build_fused_rs(const FusedInput& in, FusedKind kind) {
  const auto n = static_cast<uint32_t>(in.ring.size());
  const Layout l = make_layout(in, n);
  std::vector<GpuFusedPlan> out(n);
  for (uint32_t i = 0; i < n; ++i) {
    GpuFusedPlan& gp = out[i];
    gp.gpu = in.ring[i];
    gp.gemm = base_plan(in, l, i);
    const uint32_t prev = (i + n - 1) % n;
    for (uint32_t s = 1; s <= n; ++s) {
      const uint32_t chunk = kind == FusedKind::kRing ? (i + s - 1) % n : (i + s) % n;
      gpu::append_grouped_order(gp.gemm.order, l.proto.tiles_n(), chunk * l.rows_per_chunk,
                                (chunk + 1) * l.rows_per_chunk, in.group_m);
      const uint32_t owner = kind == FusedKind::kRing ? (chunk + 1) % n : chunk;
      for_chunk(l, chunk, [&](uint32_t t) {
        gpu::TileStore st{gp.gpu, in.out_addr[i] + l.offset[t], MemCmd::kUpdate,
                          TrafficClass::kGemmUpdate, t, false};
        tracker::TileProgram prog;
        prog.tile_bytes = l.proto.tile_bytes(t);
        const bool ring_first = kind == FusedKind::kRing && s == 1 && n > 1;
        const bool direct_remote = kind == FusedKind::kDirect && owner != i;
        if (ring_first || direct_remote) {
          const uint32_t dst = ring_first ? prev : owner;
          st.dst_gpu = in.ring[dst];
          st.addr = in.out_addr[dst] + l.offset[t];
        } else {
          prog.threshold_updates = kind == FusedKind::kRing ? (n > 1 ? 2 : 1) : n;
          if (kind == FusedKind::kRing && s < n) {
            prog.has_dma = true;
            prog.dma = gpu::DmaDescriptor{in.out_addr[i] + l.offset[t], in.ring[prev],
                                          in.out_addr[prev] + l.offset[t], prog.tile_bytes,
                                          MemCmd::kUpdate, TrafficClass::kRsRead,
                                          TrafficClass::kRsUpdate, t, 1, nullptr, 0};
          } else {
            gp.owned_tiles.push_back(t);
          }
          gp.programs.emplace_back(t, prog);
        }
        gp.gemm.stores[t] = st;
      });
    }
  }
  return out;
}

}  // namespace t3sim::t3
