// The fused GEMM's macro-tile. T3 keeps the producer GEMM's library kernel (t3-paper.md §2.3,
// §3.2), so the fused plan takes the tile the GEMM library picks for the shape on the same CUs
// (models/gpu/tile_select.h, as the isolated GEMM's launch does), within what the fused plan can
// run: no split-K (the tracker counts one contribution per tile and GPU, t3-paper.md §7.7) and a
// tile grid that splits into the reduce-scatter's equal chunks, and for a direct plan chunks of at
// most `max_chunk_tiles` tiles (the tracker's entries): a direct owner's tracker holds an entry for
// every tile of its chunk from the first GPU's update to the last, so a chunk larger than the
// table parks arrivals and stalls the senders
// (dgx-a100 GPT-3 FC-2 t3-direct with 64x128 tiles, 384 per chunk on a 256-entry table: 2272 us
// against 1550 us with the 96 tiles of 128x256). A preset with tile_select "fixed" keeps its tile,
// as its isolated GEMM does. Where no candidate qualifies, the preset tile, with its height
// lowered until it splits (chunk_compatible_tile_m).
// Contract: deterministic; the result splits the shape into `chunks` equal blocks or this throws
// ConfigError (from chunk_compatible_tile_m).
#pragma once

#include <cstdint>

#include "models/gpu/gemm_plan.h"
#include "models/gpu/gpu_spec.h"

namespace t3sim::t3 {

// `max_chunk_tiles` 0: no bound (ring plans, whose entries live about one stage).
gpu::TileShape fused_tile(const gpu::GpuSpec& spec, const gpu::GemmShape& shape,
                          uint32_t elem_bytes, uint32_t cus, uint32_t chunks,
                          uint64_t max_chunk_tiles = 0);

}  // namespace t3sim::t3
