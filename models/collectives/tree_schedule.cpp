// NCCL's Tree all-reduce (runTreeSplit in src/device/all_reduce.h; trees in src/graph/connect.cc
// and trees.cc): per channel a chain through each node's GPUs from the channel's head GPU, and the
// heads joined across nodes by one of two binary trees over the nodes (channels alternate between
// them; the second is the first mirrored, or shifted by one node for an odd count). The data are
// reduced up (leaves send, inner ranks receive-reduce-send to their parent), the root reduces,
// stores and sends the result back down, and it is broadcast down (receive-copy-send, leaves
// receive). Below the root, a rank's reduce and broadcast are two lanes on the channel's CU (NCCL
// splits the block's threads). One slice per chunk (NCCL's tree protocol moves one step per slice).
#include <algorithm>
#include <bit>

#include "models/collectives/schedule_builder.h"

namespace t3sim::collectives {
namespace {

// Parent of node r in the binary tree over n nodes rooted at 0: clear r's lowest set bit and set
// the next one, or only clear it when that leaves the tree (NCCL's ncclGetBtree shape).
int btree_parent(int r, int n) {
  if (r == 0) return -1;
  const int low = r & -r;
  const int up = (r ^ low) | (low << 1);
  return up < n ? up : r ^ low;
}

// Parent of node r in tree t (0: the binary tree; 1: its mirror image for even n, the tree
// shifted by one node for odd n), so that the two trees have different roots and inner nodes.
int node_parent(int r, int n, int t) {
  if (t == 0) return btree_parent(r, n);
  if (n % 2 == 0) {
    const int p = btree_parent(n - 1 - r, n);
    return p < 0 ? -1 : n - 1 - p;
  }
  const int p = btree_parent(mod(r - 1, n), n);
  return p < 0 ? -1 : (p + 1) % n;
}

// NCCL's tree chunk tuning for Simple: halve the chunk while the data give each channel fewer than
// 8, 4, 1 chunks per tree level (down to 128, 64, 32 KiB, and never below g.min_chunk), so the
// pipeline has enough stages.
uint64_t tuned_chunk(const Geometry& g, uint64_t depth) {
  uint64_t chunk = g.chunk;
  const uint64_t per_channel = g.bytes / std::max<uint64_t>(1, g.channels);
  const std::array<std::pair<uint64_t, uint64_t>, 3> rules{
      {{8 * depth, 128 * 1024}, {4 * depth, 64 * 1024}, {depth, 32 * 1024}}};
  for (const auto& [loops, floor] : rules) {
    const uint64_t stop = std::max(floor, g.min_chunk);
    while (per_channel / chunk < loops && chunk > stop && chunk / 2 >= g.min_chunk) chunk /= 2;
  }
  return std::max(round_up(chunk, kChunkAlign), kChunkAlign);
}

// One channel's tree: parent and children (rank indices) of every rank.
struct ChannelTree {
  std::vector<int> parent;
  std::vector<std::vector<int>> children;
};

ChannelTree channel_tree(const NodeShape& sh, uint32_t c) {
  const int n = sh.nodes * sh.local;
  // Heads rotate over the node's GPUs (their NICs); adjacent channels alternate trees, and a
  // head's successive channels do too, so every GPU serves both trees (t3sim's spreading choice).
  const auto local = static_cast<uint32_t>(sh.local);
  const int head = static_cast<int>(c % local);
  const int t = static_cast<int>((c + (local % 2 == 0 ? c / local : 0)) % 2);
  ChannelTree tr{std::vector<int>(static_cast<size_t>(n), -1),
                 std::vector<std::vector<int>>(static_cast<size_t>(n))};
  for (int m = 0; m < sh.nodes; ++m) {
    for (int k = 1; k < sh.local; ++k) {  // chain position k hangs below position k - 1
      tr.parent[sh.rank(m, (head + k) % sh.local)] = sh.rank(m, (head + k - 1) % sh.local);
    }
    const int up = node_parent(m, sh.nodes, t);
    if (up >= 0) tr.parent[sh.rank(m, head)] = sh.rank(up, head);
  }
  for (int r = 0; r < n; ++r) {
    if (tr.parent[r] >= 0) tr.children[tr.parent[r]].push_back(r);
  }
  return tr;
}

}  // namespace

Schedule make_tree(const Geometry& geo) {
  const NodeShape sh = node_shape(geo, "tree all-reduce", 1);
  Geometry g = geo;
  g.slices_per_chunk = 1;
  g.slice_floor = 0;
  if (g.channel_major) {  // Simple
    const auto depth =
        static_cast<uint64_t>(sh.local - 1 + std::bit_width(static_cast<unsigned>(sh.nodes)) - 1);
    g.chunk = tuned_chunk(g, std::max<uint64_t>(1, depth));
  }
  ScheduleBuilder b(g);
  const int n = b.size();
  if (n < 2) return b.take();
  const std::vector<Loop> loops = make_loops(g.bytes, g.channels, 1, g.chunk);
  for (uint32_t c = 0; c < g.channels; ++c) {
    const ChannelTree tr = channel_tree(sh, c);
    std::vector<uint32_t> up(static_cast<size_t>(n), kNone);    // rank -> parent (reduce)
    std::vector<uint32_t> down(static_cast<size_t>(n), kNone);  // parent -> rank (broadcast)
    for (int r = 0; r < n; ++r) {
      if (tr.parent[r] < 0) continue;
      up[r] = b.connect(r, tr.parent[r]);
      down[r] = b.connect(tr.parent[r], r);
    }
    for (int r = 0; r < n; ++r) {
      std::vector<uint32_t> from_kids;
      std::vector<uint32_t> to_kids;
      for (int k : tr.children[r]) {
        from_kids.push_back(up[k]);
        to_kids.push_back(down[k]);
      }
      const std::vector<uint32_t> to_parent =
          tr.parent[r] < 0 ? std::vector<uint32_t>{} : std::vector<uint32_t>{up[r]};
      const std::vector<uint32_t> from_parent =
          tr.parent[r] < 0 ? std::vector<uint32_t>{} : std::vector<uint32_t>{down[r]};
      const bool leaf = from_kids.empty();
      auto each_loop = [&](uint8_t flags, Phase ph, const std::vector<uint32_t>& sends,
                           const std::vector<uint32_t>& recvs) {
        b.open_lane(r, c);
        for (const Loop& lp : loops) {
          const uint64_t off = lp.grid + c * lp.real;
          b.chunk(flags, ph, off, clamp_len(g.bytes, off, lp.real), sends, recvs);
        }
      };
      if (tr.parent[r] < 0) {  // the root: reduce, store and send the result down in one op
        each_loop(kRecvReduceCopySend, Phase::kReduceScatter, to_kids, from_kids);
        continue;
      }
      each_loop(leaf ? kSendOnly : kRecvReduceSend, Phase::kReduceScatter, to_parent, from_kids);
      each_loop(leaf ? kRecvOnly : kRecvCopySend, Phase::kAllGather, to_kids, from_parent);
    }
  }
  return b.take();
}

}  // namespace t3sim::collectives
