// The fused GEMM-RS plan (models/t3/fused_plan.h) as data. Chunk identity is read back from the
// output address map (the layout is chunk-major, so a tile's byte offset / chunk bytes is its
// chunk), independently of the dispatch order under test. Ring: each GPU dispatches every tile
// once, stage s computes chunk (g + s - 1) mod N, stage-1 tiles go to g-1 as UPDATEs, N-2 chunks
// carry a threshold-2 DMA program to g-1 and one chunk (g-1's) completes locally. Direct: the
// owner expects N updates and every other GPU stores straight into it. Plus chunk shapes and the
// tile-height / splittability helpers.
#include "models/t3/fused_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "sim/errors.h"

namespace t3sim::t3 {
namespace {

using common::MemCmd;

constexpr uint64_t kOutBase = uint64_t{1} << 40;  // GPU position i's output at kOutBase * (i + 1)

FusedInput make_input(gpu::GemmShape shape, std::vector<int> ring, uint32_t tile_m = 128,
                      uint32_t tile_n = 128) {
  FusedInput in;
  in.shape = shape;
  in.tile_m = tile_m;
  in.tile_n = tile_n;
  in.group_m = 8;
  in.ring = std::move(ring);
  for (size_t i = 0; i < in.ring.size(); ++i) {
    in.a_addr.push_back(1000 + i);
    in.b_addr.push_back(2000 + i);
    in.out_addr.push_back(kOutBase * (i + 1));
  }
  return in;
}

std::vector<int> identity_ring(int n) {
  std::vector<int> r(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) r[static_cast<size_t>(i)] = i;
  return r;
}

// Position of GPU id `gpu` in the ring.
size_t pos_of(const FusedInput& in, int gpu) {
  return static_cast<size_t>(std::find(in.ring.begin(), in.ring.end(), gpu) - in.ring.begin());
}

struct Derived {
  uint64_t out_bytes = 0;
  uint64_t chunk_bytes = 0;
  uint32_t tiles = 0;
  uint32_t per_chunk = 0;
};

Derived derive(const FusedInput& in, const GpuFusedPlan& p) {
  Derived d;
  d.tiles = p.gemm.tiles();
  for (uint32_t t = 0; t < d.tiles; ++t) d.out_bytes += p.gemm.tile_bytes(t);
  d.chunk_bytes = d.out_bytes / in.ring.size();
  d.per_chunk = d.tiles / static_cast<uint32_t>(in.ring.size());
  return d;
}

// Chunk of tile t on GPU position i, from its store address (local or remote buffer).
uint32_t chunk_of_store(const FusedInput& in, const gpu::TileStore& st, const Derived& d) {
  const uint64_t off = st.addr - in.out_addr[pos_of(in, st.dst_gpu)];
  return static_cast<uint32_t>(off / d.chunk_bytes);
}

void expect_permutation(const std::vector<uint32_t>& order, uint32_t tiles, int gpu) {
  ASSERT_EQ(order.size(), tiles) << "GPU " << gpu;
  std::vector<uint32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (uint32_t t = 0; t < tiles; ++t) ASSERT_EQ(sorted[t], t) << "GPU " << gpu;
}

void check_ring(const FusedInput& in) {
  const auto plans = build_fused_rs(in, FusedKind::kRing);
  const auto n = static_cast<uint32_t>(in.ring.size());
  ASSERT_EQ(plans.size(), n);
  for (uint32_t i = 0; i < n; ++i) {
    const GpuFusedPlan& p = plans[i];
    const Derived d = derive(in, p);
    const uint32_t prev = (i + n - 1) % n;
    SCOPED_TRACE("ring position " + std::to_string(i));
    EXPECT_EQ(p.gpu, in.ring[i]);
    EXPECT_EQ(p.gemm.a_addr, in.a_addr[i]);
    EXPECT_EQ(p.gemm.b_addr, in.b_addr[i]);
    expect_permutation(p.gemm.order, d.tiles, p.gpu);
    ASSERT_EQ(p.gemm.stores.size(), d.tiles);
    ASSERT_EQ(d.tiles % n, 0u);
    std::map<uint32_t, const tracker::TileProgram*> prog;
    for (const auto& [t, pr] : p.programs) {
      EXPECT_TRUE(prog.emplace(t, &pr).second) << "tile " << t << " programmed twice";
    }
    uint32_t dma_chunks = 0, owned_chunks = 0;
    for (uint32_t s = 1; s <= n; ++s) {
      const uint32_t want_chunk = (i + s - 1) % n;
      bool chunk_dma = false, chunk_owned = false;
      for (uint32_t k = 0; k < d.per_chunk; ++k) {
        const uint32_t t = p.gemm.order[(s - 1) * d.per_chunk + k];
        const gpu::TileStore& st = p.gemm.stores[t];
        EXPECT_EQ(chunk_of_store(in, st, d), want_chunk) << "stage " << s << " tile " << t;
        EXPECT_EQ(st.cmd, MemCmd::kUpdate);
        EXPECT_EQ(st.tracker_tile, t);
        if (s == 1 && n > 1) {
          EXPECT_EQ(st.dst_gpu, in.ring[prev]) << "stage-1 tile " << t << " must go to g-1";
          EXPECT_EQ(prog.count(t), 0u) << "stage-1 tile " << t << " is not tracked locally";
          continue;
        }
        EXPECT_EQ(st.dst_gpu, p.gpu) << "stage " << s << " tile " << t << " must stay local";
        ASSERT_EQ(prog.count(t), 1u) << "stage " << s << " tile " << t << " not programmed";
        const tracker::TileProgram& pr = *prog.at(t);
        EXPECT_EQ(pr.threshold_updates, 2u);
        EXPECT_EQ(pr.tile_bytes, p.gemm.tile_bytes(t));
        if (pr.has_dma) {
          chunk_dma = true;
          EXPECT_LT(s, n);
          EXPECT_EQ(pr.dma.dst_gpu, in.ring[prev]);
          EXPECT_EQ(pr.dma.src_addr, st.addr);
          EXPECT_EQ(pr.dma.dst_addr - in.out_addr[prev], st.addr - in.out_addr[i]);
          EXPECT_EQ(pr.dma.bytes, pr.tile_bytes);
          EXPECT_EQ(pr.dma.dst_cmd, MemCmd::kUpdate);
          EXPECT_EQ(pr.dma.dst_tile, t);
        } else {
          chunk_owned = true;
          EXPECT_EQ(s, n) << "only the last stage completes locally";
        }
      }
      EXPECT_FALSE(chunk_dma && chunk_owned) << "stage " << s << " mixes DMA and owned tiles";
      dma_chunks += chunk_dma ? 1 : 0;
      owned_chunks += chunk_owned ? 1 : 0;
    }
    EXPECT_EQ(dma_chunks, n - 2);
    EXPECT_EQ(owned_chunks, 1u);
    EXPECT_EQ(p.programs.size(), (n - 1) * d.per_chunk);
    ASSERT_EQ(p.owned_tiles.size(), d.per_chunk);
    // The owned chunk is the one this GPU reduces last: (i + N - 1) mod N = i - 1.
    for (uint32_t t : p.owned_tiles) {
      EXPECT_EQ(chunk_of_store(in, p.gemm.stores[t], d), prev);
    }
  }
}

TEST(FusedPlanRing, EightGpusMegaGpt2Fc2) {
  check_ring(make_input({1024, 3072, 1536}, identity_ring(8)));
}

TEST(FusedPlanRing, FourGpusAndTallGrid) {
  check_ring(make_input({4096, 1024, 512}, identity_ring(4)));
}

TEST(FusedPlanRing, PermutedRingUsesRingNeighbours) {
  check_ring(make_input({1024, 3072, 1536}, {3, 0, 6, 1, 7, 2, 5, 4}));
}

TEST(FusedPlanRing, TwoGpusHaveNoDma) {
  const auto in = make_input({512, 512, 256}, identity_ring(2));
  check_ring(in);
  for (const auto& p : build_fused_rs(in, FusedKind::kRing)) {
    for (const auto& [t, pr] : p.programs) EXPECT_FALSE(pr.has_dma);
  }
}

TEST(FusedPlanRing, EveryChunkIsOwnedOnceAndForwardedAlongTheRing) {
  const auto in = make_input({1024, 3072, 1536}, identity_ring(8));
  const auto plans = build_fused_rs(in, FusedKind::kRing);
  const Derived d = derive(in, plans[0]);
  std::map<uint32_t, int> owners;  // chunk -> number of owning GPUs
  uint32_t owned_total = 0;
  for (const auto& p : plans) {
    owned_total += static_cast<uint32_t>(p.owned_tiles.size());
    std::set<uint32_t> chunks;
    for (uint32_t t : p.owned_tiles) chunks.insert(chunk_of_store(in, p.gemm.stores[t], d));
    for (uint32_t c : chunks) ++owners[c];
  }
  EXPECT_EQ(owned_total, d.tiles);
  ASSERT_EQ(owners.size(), 8u);
  for (const auto& [c, k] : owners) EXPECT_EQ(k, 1) << "chunk " << c;
}

TEST(FusedPlanDirect, OwnerExpectsNUpdatesOthersStoreToOwner) {
  const auto in = make_input({1024, 3072, 1536}, identity_ring(8));
  const auto plans = build_fused_rs(in, FusedKind::kDirect);
  const uint32_t n = 8;
  for (uint32_t i = 0; i < n; ++i) {
    const GpuFusedPlan& p = plans[i];
    const Derived d = derive(in, p);
    SCOPED_TRACE("GPU " + std::to_string(i));
    expect_permutation(p.gemm.order, d.tiles, p.gpu);
    std::map<uint32_t, const tracker::TileProgram*> prog;
    for (const auto& [t, pr] : p.programs) prog.emplace(t, &pr);
    EXPECT_EQ(p.programs.size(), d.per_chunk);
    EXPECT_EQ(p.owned_tiles.size(), d.per_chunk);
    for (uint32_t t = 0; t < d.tiles; ++t) {
      const gpu::TileStore& st = p.gemm.stores[t];
      const uint32_t chunk = chunk_of_store(in, st, d);
      EXPECT_EQ(st.cmd, MemCmd::kUpdate);
      EXPECT_EQ(st.tracker_tile, t);
      // Chunk c is owned by position c; its tiles go straight into the owner's buffer.
      EXPECT_EQ(st.dst_gpu, in.ring[chunk]) << "tile " << t;
      if (chunk == i) {
        ASSERT_EQ(prog.count(t), 1u) << "own tile " << t;
        EXPECT_EQ(prog.at(t)->threshold_updates, n);
        EXPECT_FALSE(prog.at(t)->has_dma);
      } else {
        EXPECT_EQ(prog.count(t), 0u) << "tile " << t << " of chunk " << chunk;
      }
    }
    // Own chunk last.
    for (uint32_t k = 0; k < d.per_chunk; ++k) {
      const uint32_t t = p.gemm.order[(n - 1) * d.per_chunk + k];
      EXPECT_EQ(chunk_of_store(in, p.gemm.stores[t], d), i);
    }
  }
}

TEST(FusedPlan, ChunksAreEqualContiguousBlocks) {
  for (const auto& [shape, n] : std::vector<std::pair<gpu::GemmShape, int>>{
           {{1024, 3072, 1536}, 8}, {{4096, 1024, 512}, 4}, {{2048, 4352, 2128}, 8}}) {
    const auto in = make_input(shape, identity_ring(n));
    const auto plans = build_fused_rs(in, FusedKind::kRing);
    const GpuFusedPlan& p = plans[0];
    const Derived d = derive(in, p);
    SCOPED_TRACE(std::to_string(shape.m) + "x" + std::to_string(shape.n) +
                 " N=" + std::to_string(n));
    std::map<uint32_t, std::vector<uint32_t>> chunk_tiles;
    std::map<uint32_t, uint64_t> chunk_bytes;
    std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [offset, offset + bytes) per tile
    for (uint32_t t = 0; t < d.tiles; ++t) {
      const gpu::TileStore& st = p.gemm.stores[t];
      const uint64_t off = st.addr - in.out_addr[pos_of(in, st.dst_gpu)];
      ranges.emplace_back(off, off + p.gemm.tile_bytes(t));
      const uint32_t c = static_cast<uint32_t>(off / d.chunk_bytes);
      chunk_tiles[c].push_back(t);
      chunk_bytes[c] += p.gemm.tile_bytes(t);
      // A tile never straddles a chunk boundary.
      EXPECT_EQ((off + p.gemm.tile_bytes(t) - 1) / d.chunk_bytes, c) << "tile " << t;
    }
    // Tiles tile the output exactly: no overlaps, no gaps.
    std::sort(ranges.begin(), ranges.end());
    EXPECT_EQ(ranges.front().first, 0u);
    for (size_t k = 1; k < ranges.size(); ++k) EXPECT_EQ(ranges[k].first, ranges[k - 1].second);
    EXPECT_EQ(ranges.back().second, d.out_bytes);
    ASSERT_EQ(chunk_tiles.size(), static_cast<size_t>(n));
    const uint32_t tn = p.gemm.tiles_n();
    for (const auto& [c, tiles] : chunk_tiles) {
      EXPECT_EQ(tiles.size(), d.per_chunk) << "chunk " << c;
      EXPECT_EQ(chunk_bytes[c], d.chunk_bytes) << "chunk " << c;
      // A rectangular block of the tile grid: rows x cols == tiles.
      std::set<uint32_t> rows, cols;
      for (uint32_t t : tiles) {
        rows.insert(t / tn);
        cols.insert(t % tn);
      }
      EXPECT_EQ(rows.size() * cols.size(), tiles.size()) << "chunk " << c;
      EXPECT_EQ(*rows.rbegin() - *rows.begin() + 1, rows.size()) << "chunk " << c;
      EXPECT_EQ(*cols.rbegin() - *cols.begin() + 1, cols.size()) << "chunk " << c;
    }
  }
}

TEST(FusedPlan, UnsplittableGridIsConfigError) {
  // 3 x 1 tiles cannot be cut into 8 equal blocks.
  EXPECT_THROW(build_fused_rs(make_input({384, 128, 64}, identity_ring(8)), FusedKind::kRing),
               ConfigError);
  EXPECT_THROW(build_fused_rs(make_input({384, 128, 64}, identity_ring(8)), FusedKind::kDirect),
               ConfigError);
}

TEST(FusedPlan, Splittable) {
  EXPECT_TRUE(splittable({1024, 3072, 1}, 128, 128, 8));  // 8 x 24 tiles
  EXPECT_TRUE(splittable({1024, 3072, 1}, 128, 128, 1));
  EXPECT_FALSE(splittable({1024, 3072, 1}, 128, 128, 7));  // neither 8 nor 24 divides by 7
  EXPECT_FALSE(splittable({384, 128, 1}, 128, 128, 8));    // 3 x 1 tiles
  EXPECT_TRUE(splittable({384, 128, 1}, 16, 128, 8));      // 24 x 1 tiles: 8 row blocks
  EXPECT_TRUE(splittable({128, 1024, 1}, 128, 128, 8));    // 1 x 8 tiles: column blocks
  EXPECT_TRUE(splittable({256, 512, 1}, 128, 128, 8));     // 2 x 4 tiles: a 2 x 4 block grid
  EXPECT_FALSE(splittable({256, 384, 1}, 128, 128, 8));    // 2 x 3 tiles
}

TEST(FusedPlan, ChunkCompatibleTileM) {
  EXPECT_EQ(chunk_compatible_tile_m(1024, 8, 128), 128u);  // 128 rows per chunk
  EXPECT_EQ(chunk_compatible_tile_m(768, 8, 128), 32u);    // 96 rows: 32 divides, 64 does not
  EXPECT_EQ(chunk_compatible_tile_m(384, 8, 128), 16u);    // 48 rows
  EXPECT_EQ(chunk_compatible_tile_m(8192, 16, 64), 64u);   // never above the preferred height
  EXPECT_THROW(chunk_compatible_tile_m(1001, 8, 128), ConfigError);  // not divisible by N
  EXPECT_THROW(chunk_compatible_tile_m(1000, 8, 128), ConfigError);  // 125 rows per chunk
  EXPECT_THROW(chunk_compatible_tile_m(64, 8, 128), ConfigError);    // 8 rows per chunk
  // A tile height it returns always makes the grid splittable along rows.
  for (uint64_t m : {1024u, 768u, 384u, 2048u, 6144u}) {
    const uint32_t tm = chunk_compatible_tile_m(m, 8, 128);
    EXPECT_EQ((m / 8) % tm, 0u) << m;
    EXPECT_TRUE(splittable({m, 100, 1}, tm, 128, 8)) << m;
  }
}

TEST(FusedPlan, FallbackTileHeightMakesPlanBuildable) {
  // 768 tokens: 6 tile rows of 128 cannot split 8 ways with 1 tile column; 32-row tiles can.
  const gpu::GemmShape shape{768, 128, 256};
  EXPECT_FALSE(splittable(shape, 128, 128, 8));
  const uint32_t tm = chunk_compatible_tile_m(shape.m, 8, 128);
  const auto in = make_input(shape, identity_ring(8), tm);
  check_ring(in);
}

}  // namespace
}  // namespace t3sim::t3
