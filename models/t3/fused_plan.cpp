#include "models/t3/fused_plan.h"

#include <algorithm>

#include "sim/errors.h"

namespace t3sim::t3 {
namespace {

using common::MemCmd;
using common::TrafficClass;

struct Layout {
  gpu::GemmPlan proto;
  std::vector<uint64_t> offset;               // tile-major byte offset of each tile in the output
  std::vector<std::vector<uint32_t>> chunks;  // tiles of each chunk, in dispatch (grouped) order
};

// Input elements a chunk of (rm tile rows x cn tile columns) streams from HBM if its A rows and B
// columns are each read once: the chunk shape that minimises it keeps the GEMM's L2 reuse.
uint64_t chunk_cost(uint32_t rm, uint32_t cn, const gpu::GemmPlan& p) {
  return (static_cast<uint64_t>(rm) * p.tile_m + static_cast<uint64_t>(cn) * p.tile_n) * p.shape.k;
}

Layout make_layout(const FusedInput& in, uint32_t n) {
  Layout l;
  l.proto.shape = in.shape;
  l.proto.elem_bytes = in.elem_bytes;
  l.proto.tile_m = in.tile_m;
  l.proto.tile_n = in.tile_n;
  const uint32_t tm = l.proto.tiles_m(), tn = l.proto.tiles_n();
  // Chunks are r x c blocks of the tile grid (r row blocks, c column blocks, r * c = n).
  uint32_t best_r = 0;
  for (uint32_t r = 1; r <= n; ++r) {
    if (n % r != 0 || tm % r != 0 || tn % (n / r) != 0) continue;
    if (best_r == 0 || chunk_cost(tm / r, tn / (n / r), l.proto) <
                           chunk_cost(tm / best_r, tn / (n / best_r), l.proto)) {
      best_r = r;
    }
  }
  if (best_r == 0) {
    throw ConfigError("", "/tokens",
                      "T3 cannot split the " + std::to_string(tm) + " x " + std::to_string(tn) +
                          " tile grid into " + std::to_string(n) +
                          " equal blocks (choose tokens "
                          "divisible by " +
                          std::to_string(n * in.tile_m) + ")");
  }
  const uint32_t r = best_r, c = n / best_r, rows = tm / r, cols = tn / c;
  l.chunks.resize(n);
  for (uint32_t ch = 0; ch < n; ++ch) {
    const uint32_t r0 = (ch / c) * rows, c0 = (ch % c) * cols;
    for (uint32_t g = r0; g < r0 + rows; g += in.group_m) {
      for (uint32_t cc = c0; cc < c0 + cols; ++cc) {
        for (uint32_t rr = g; rr < std::min(r0 + rows, g + in.group_m); ++rr) {
          l.chunks[ch].push_back(rr * tn + cc);
        }
      }
    }
  }
  l.offset.resize(l.proto.tiles());
  uint64_t off = 0;
  for (const auto& chunk : l.chunks) {  // chunk-major layout: each RS chunk is contiguous
    for (uint32_t t : chunk) {
      l.offset[t] = off;
      off += l.proto.tile_bytes(t);
    }
  }
  return l;
}

class ChunkMirror final : public common::MirrorMap {
 public:
  ChunkMirror(Layout l, std::vector<uint64_t> out_addr)
      : l_(std::move(l)), out_(std::move(out_addr)) {
    chunk_of_.resize(l_.proto.tiles());
    index_of_.resize(l_.proto.tiles());
    for (uint32_t c = 0; c < l_.chunks.size(); ++c) {
      for (uint32_t j = 0; j < l_.chunks[c].size(); ++j) {
        chunk_of_[l_.chunks[c][j]] = c;
        index_of_[l_.chunks[c][j]] = j;
      }
    }
    bytes_ = l_.proto.shape.m * l_.proto.shape.n * l_.proto.elem_bytes;
  }
  void to_rep(int dst, int rep, uint64_t& addr, uint32_t& tile) const override {
    const auto d = static_cast<size_t>(dst);
    if (tile == common::kNoTile || tile >= chunk_of_.size() || addr < out_[d] ||
        addr >= out_[d] + bytes_) {
      return;
    }
    const auto n = static_cast<uint32_t>(l_.chunks.size());
    const uint32_t by = static_cast<uint32_t>(dst - rep) % n;  // ring position = GPU id
    const uint32_t c = (chunk_of_[tile] + n - by) % n;
    const uint32_t t = l_.chunks[c][index_of_[tile]];
    addr = out_[static_cast<size_t>(rep)] + l_.offset[t] + (addr - out_[d] - l_.offset[tile]);
    tile = t;
  }

 private:
  Layout l_;
  std::vector<uint64_t> out_;
  std::vector<uint32_t> chunk_of_;
  std::vector<uint32_t> index_of_;
  uint64_t bytes_ = 0;
};

gpu::GemmPlan base_plan(const FusedInput& in, const Layout& l, size_t pos) {
  gpu::GemmPlan p = l.proto;
  p.a_addr = in.a_addr[pos];
  p.b_addr = in.b_addr[pos];
  p.stores.resize(p.tiles());
  return p;
}

// The rings of a ring plan (`ring`, then `extra_rings`; a direct plan has `ring` alone): each
// GPU's position in each, and the share of every chunk's tiles each ring reduces.
class Rings {
 public:
  Rings(const FusedInput& in, FusedKind kind, uint32_t chunk_tiles) {
    rings_.push_back(&in.ring);
    if (kind == FusedKind::kRing) {
      for (const auto& r : in.extra_rings) rings_.push_back(&r);
    }
    int top = 0;
    for (const int g : in.ring) top = std::max(top, g);
    const auto n = static_cast<uint32_t>(in.ring.size());
    for (const auto* r : rings_) {
      std::vector<uint32_t> pos(static_cast<size_t>(top) + 1, n);
      for (uint32_t p = 0; p < r->size(); ++p) {
        const int g = (*r)[p];
        if (r->size() != n || g < 0 || g > top || pos[static_cast<size_t>(g)] != n) {
          throw ModelError("t3", "every fused reduce-scatter ring must order the same GPUs");
        }
        pos[static_cast<size_t>(g)] = p;
      }
      pos_.push_back(std::move(pos));
    }
    std::vector<uint64_t> w(rings_.size(), 1);
    if (kind == FusedKind::kRing && !in.weights.empty()) {
      if (in.weights.size() != rings_.size()) {
        throw ModelError("t3", "one weight per fused reduce-scatter ring");
      }
      for (size_t r = 0; r < w.size(); ++r) w[r] = std::max<uint32_t>(1, in.weights[r]);
    }
    uint64_t total = 0, acc = 0;
    for (const uint64_t x : w) total += x;
    for (const uint64_t x : w) {
      first_.push_back(static_cast<uint32_t>(acc * chunk_tiles / total));
      acc += x;
    }
    first_.push_back(chunk_tiles);
  }
  uint32_t count() const { return static_cast<uint32_t>(rings_.size()); }
  const std::vector<int>& ring(uint32_t r) const { return *rings_[r]; }
  uint32_t position(uint32_t r, int gpu) const { return pos_[r][static_cast<size_t>(gpu)]; }
  // Ring position 0 indexes the per-GPU addresses.
  size_t address_index(int gpu) const { return position(0, gpu); }
  // The chunk whose reduction completes on `gpu`: on the first ring, position i owns chunk i-1.
  uint32_t owned_chunk(int gpu) const {
    const auto n = static_cast<uint32_t>(rings_[0]->size());
    return (position(0, gpu) + n - 1) % n;
  }
  // Ring r reduces tiles [first(r), first(r + 1)) of every chunk's tile list.
  uint32_t first(uint32_t r) const { return first_[r]; }

 private:
  std::vector<const std::vector<int>*> rings_;
  std::vector<std::vector<uint32_t>> pos_;  // [ring][GPU id] -> position
  std::vector<uint32_t> first_;
};

// Where one stage's tiles of one ring go, as seen from the GPU computing them.
struct TileTarget {
  FusedKind kind;
  uint32_t stage;  // 1..n
  uint32_t n;
  bool own;   // direct: the tile's chunk is this GPU's
  int prev;   // ring: the GPU this one sends its partial sums to
  int owner;  // direct: the GPU that owns the tile's chunk
};

// NVLS: tile t is written locally; its entry fires a DMA of copies for the in-switch reduction
// at the owner, where the reduced tile's write completes entry tiles + t.
void plan_nvls_tile(const FusedInput& in, const Layout& l, const Rings& rings, const TileTarget& tt,
                    uint32_t t, GpuFusedPlan& gp) {
  gp.gemm.order.push_back(t);
  const uint64_t local = in.out_addr[rings.address_index(gp.gpu)] + l.offset[t];
  gp.gemm.stores[t] =
      gpu::TileStore{gp.gpu, local, MemCmd::kWrite, TrafficClass::kGemmWrite, t, false};
  tracker::TileProgram prog;
  prog.tile_bytes = l.proto.tile_bytes(t);
  prog.threshold_updates = 1;
  const auto landed = static_cast<uint32_t>(gp.gemm.tiles() + t);
  if (tt.n > 1) {
    prog.has_dma = true;
    prog.dma.src_addr = local;
    prog.dma.dst_gpu = tt.owner;
    prog.dma.dst_addr = in.out_addr[rings.address_index(tt.owner)] + l.offset[t];
    prog.dma.bytes = prog.tile_bytes;
    prog.dma.dst_cmd = MemCmd::kWrite;
    prog.dma.read_cls = TrafficClass::kRsRead;
    prog.dma.write_cls = TrafficClass::kRsWrite;
    prog.dma.dst_tile = landed;
    prog.dma.switch_copies = static_cast<uint16_t>(tt.n);
  } else {
    gp.owned_tiles.push_back(t);
  }
  gp.programs.emplace_back(t, prog);
  if (tt.own && tt.n > 1) {
    tracker::TileProgram done;
    done.tile_bytes = prog.tile_bytes;
    done.threshold_updates = 1;
    gp.programs.emplace_back(landed, done);
    gp.owned_tiles.push_back(t);
  }
}

// Appends tile t to the GEMM order with its store and (when tracked) its tracker program.
void plan_tile(const FusedInput& in, const Layout& l, const Rings& rings, const TileTarget& tt,
               uint32_t t, GpuFusedPlan& gp) {
  gp.gemm.order.push_back(t);
  const uint64_t local = in.out_addr[rings.address_index(gp.gpu)] + l.offset[t];
  gpu::TileStore st{gp.gpu, local, MemCmd::kUpdate, TrafficClass::kGemmUpdate, t, false};
  tracker::TileProgram prog;
  prog.tile_bytes = l.proto.tile_bytes(t);
  const bool ring = tt.kind == FusedKind::kRing;
  const bool ring_first = ring && tt.stage == 1 && tt.n > 1;
  if (ring_first || (!ring && !tt.own)) {
    st.dst_gpu = ring_first ? tt.prev : tt.owner;
    st.addr = in.out_addr[rings.address_index(st.dst_gpu)] + l.offset[t];
  } else {
    prog.threshold_updates = ring ? (tt.n > 1 ? 2 : 1) : tt.n;
    if (ring && tt.stage < tt.n) {
      prog.has_dma = true;
      prog.dma = gpu::DmaDescriptor{local,
                                    tt.prev,
                                    in.out_addr[rings.address_index(tt.prev)] + l.offset[t],
                                    prog.tile_bytes,
                                    MemCmd::kUpdate,
                                    TrafficClass::kRsRead,
                                    TrafficClass::kRsUpdate,
                                    t,
                                    1,
                                    nullptr,
                                    0};
      // T3's output region is uncached (t3-paper.md §3.5): the DMA's reads of it take no L2.
      prog.dma.l2 = common::L2Policy::kNoAllocate;
    } else {
      gp.owned_tiles.push_back(t);
    }
    gp.programs.emplace_back(t, prog);
  }
  gp.gemm.stores[t] = st;
}

}  // namespace

bool splittable(const gpu::GemmShape& shape, uint32_t tile_m, uint32_t tile_n, uint32_t n) {
  const uint64_t tm = (shape.m + tile_m - 1) / tile_m, tn = (shape.n + tile_n - 1) / tile_n;
  for (uint32_t r = 1; r <= n; ++r) {
    if (n % r == 0 && tm % r == 0 && tn % (n / r) == 0) return true;
  }
  return false;
}

uint32_t chunk_compatible_tile_m(uint64_t m, uint32_t n, uint32_t preferred) {
  if (m % n != 0) {
    throw ConfigError("", "/tokens",
                      "tokens (" + std::to_string(m) + ") must be divisible by the " +
                          std::to_string(n) + " GPUs of the reduce-scatter");
  }
  const uint64_t rows = m / n;
  for (uint32_t t = preferred; t >= 16; t /= 2) {
    if (rows % t == 0) return t;
  }
  throw ConfigError("", "/tokens",
                    "tokens/GPUs = " + std::to_string(rows) +
                        " rows per chunk is not a multiple of 16 (choose tokens "
                        "divisible by " +
                        std::to_string(16 * n) + ")");
}

std::vector<GpuFusedPlan> build_fused_rs(const FusedInput& in, FusedKind kind, uint32_t positions) {
  const auto n = static_cast<uint32_t>(in.ring.size());
  const Layout l = make_layout(in, n);
  if (kind == FusedKind::kNvls && l.proto.tiles() > UINT32_MAX / 2) {
    throw ModelError("t3", "too many tiles for the NVLS tracker ids (tiles + t)");
  }
  const Rings rings(in, kind, static_cast<uint32_t>(l.chunks[0].size()));
  std::vector<GpuFusedPlan> out(positions == 0 ? n : std::min(positions, n));
  for (uint32_t i = 0; i < out.size(); ++i) {
    GpuFusedPlan& gp = out[i];
    gp.gpu = in.ring[i];
    gp.gemm = base_plan(in, l, i);
    gp.tracker_tiles = gp.gemm.tiles() * (kind == FusedKind::kNvls ? 2 : 1);
    for (uint32_t s = 1; s <= n; ++s) {
      for (uint32_t r = 0; r < rings.count(); ++r) {
        const std::vector<int>& ring = rings.ring(r);
        const uint32_t p = rings.position(r, gp.gpu);
        // Ring: the chunk owned by the GPU s positions on (t3-paper.md §3.8); direct: own last.
        const uint32_t chunk =
            kind == FusedKind::kRing ? rings.owned_chunk(ring[(p + s) % n]) : (i + s) % n;
        const TileTarget target{kind, s, n, chunk == i, ring[(p + n - 1) % n], in.ring[chunk]};
        const std::vector<uint32_t>& tiles = l.chunks[chunk];
        for (uint32_t j = rings.first(r); j < rings.first(r + 1); ++j) {
          if (kind == FusedKind::kNvls) {
            plan_nvls_tile(in, l, rings, target, tiles[j], gp);
          } else {
            plan_tile(in, l, rings, target, tiles[j], gp);
          }
        }
      }
    }
  }
  return out;
}

std::unique_ptr<common::MirrorMap> make_mirror(const FusedInput& in) {
  if (!in.extra_rings.empty()) throw common::FoldError("a multi-ring fused reduce-scatter");
  for (size_t i = 0; i < in.ring.size(); ++i) {
    if (in.ring[i] != static_cast<int>(i)) throw common::FoldError("ring not in GPU order");
  }
  Layout l = make_layout(in, static_cast<uint32_t>(in.ring.size()));
  for (const auto& chunk : l.chunks) {  // rotation keeps sizes only if chunks are congruent
    for (size_t j = 0; j < chunk.size(); ++j) {
      if (chunk.size() != l.chunks[0].size() ||
          l.proto.tile_bytes(chunk[j]) != l.proto.tile_bytes(l.chunks[0][j])) {
        throw common::FoldError("RS chunks hold different edge tiles");
      }
    }
  }
  return std::make_unique<ChunkMirror>(std::move(l), in.out_addr);
}

}  // namespace t3sim::t3
