// The software side of T3 (t3-paper.md §3.2, §3.8): the "collective library" function that turns
// a GEMM's tiling and the reduce-scatter's ring (or switch) into each GPU's output address map and
// tracker program. Everything is data: chunk count, tile-to-chunk mapping, store targets and
// thresholds; `ring` and `direct` are two maps over the same GEMM and tracker code.
// Ring (t3-paper.md §3.8): GPU at ring position i computes chunk (i + s - 1) mod N in stage s;
// stage 1 stores are remote UPDATEs to position i-1; stages 2..N-1 are local UPDATEs whose tracker
// entry (threshold 2: local + incoming) fires a DMA UPDATE of the partial sum to position i-1;
// stage N completes the reduction locally. Multi-ring (a mesh's disjoint rings, as the collective
// planner finds them): every chunk's tiles are dealt to the rings in proportion to their weights,
// and each ring runs the schedule above on its share, a GPU computing in stage s the share of the
// chunk owned by the GPU s positions on in that ring, so each chunk still completes at one owner
// (position i of `ring` owns chunk i-1) and every link of the rings carries its part. Direct (paper
// §7.1): each tile is UPDATEd straight into its chunk owner's memory; the owner's entry expects N
// updates; each GPU computes its own chunk last. Chunks are equal r x c blocks of the tile grid (r
// * c = N); the library picks the block shape that minimises the input each chunk streams, so
// staggering chunk by chunk keeps the GEMM's L2 reuse (a row-only split re-reads all of B once per
// chunk). Each chunk is contiguous in memory. NVLS (paper §7.1's direct map with §7.4's
// switch-based reduction): as direct, but each GPU writes every tile locally (uncached), its
// tracker entry (threshold 1) fires a DMA whose chunks are copies for an in-switch reduction of all
// N GPUs' copies (gpu::RemoteAccess::switch_copies), and the reduced tile lands at the owner as a
// plain write counted by the owner's tracker under id tiles + t (one write carrying N
// contributions).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "models/common/mirror.h"
#include "models/gpu/gemm_plan.h"
#include "models/tracker/tracker.h"

namespace t3sim::t3 {

enum class FusedKind { kRing, kDirect, kNvls };

struct FusedInput {
  gpu::GemmShape shape;
  uint32_t elem_bytes = 2;
  uint32_t tile_m = 128;
  uint32_t tile_n = 128;
  uint32_t group_m = 8;
  std::vector<int> ring;  // GPU ids in ring order; position i sends to position i-1
  std::vector<uint64_t> a_addr, b_addr, out_addr;  // per position of `ring`
  // Ring plans only: more rings over the same GPUs (each in `ring`'s convention) and one weight
  // per ring, `ring` first (empty: equal shares).
  std::vector<std::vector<int>> extra_rings;
  std::vector<uint32_t> weights;
};

struct GpuFusedPlan {
  int gpu = 0;
  gpu::GemmPlan gemm;
  std::vector<std::pair<uint32_t, tracker::TileProgram>> programs;
  std::vector<uint32_t> owned_tiles;  // tiles whose reduction completes on this GPU
  uint64_t tracker_tiles = 0;         // tracker ids the programs use: [0, tracker_tiles)
};

// Plans of ring positions [0, positions) (0: all; a folded run needs position 0 alone).
std::vector<GpuFusedPlan> build_fused_rs(const FusedInput& in, FusedKind kind,
                                         uint32_t positions = 0);

// Folded runs (models/common/mirror.h): an UPDATE of tile t (chunk c) in GPU d's output stands for
// the same place of chunk c - d in GPU 0's output. Needs in.ring to be 0..N-1 in order and no
// extra rings (common::FoldError otherwise); ring and direct plans rotate alike.
std::unique_ptr<common::MirrorMap> make_mirror(const FusedInput& in);

// True if the tile grid of `shape` with these tiles splits into `n` equal blocks.
bool splittable(const gpu::GemmShape& shape, uint32_t tile_m, uint32_t tile_n, uint32_t n);

// Largest tile height <= preferred that splits `m` rows into whole tile rows per chunk of `n`
// chunks (a power-of-two divisor of m / n, at least 16); throws ConfigError if none exists.
uint32_t chunk_compatible_tile_m(uint64_t m, uint32_t n, uint32_t preferred);

}  // namespace t3sim::t3
