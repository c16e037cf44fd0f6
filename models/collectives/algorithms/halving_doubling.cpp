#include "models/collectives/algorithms/halving_doubling.h"

#include <algorithm>
#include <bit>

#include "models/collectives/schedule_builder.h"
#include "sim/errors.h"

namespace t3sim::collectives {
namespace {

// Where block j (j = 0..n-1) of one channel and loop lives. All-reduce: the channel's n chunks of
// the loop, contiguous, so a run of blocks is one op; reduce-scatter and all-gather: the channel's
// chunk of part j, so a run of blocks is one op per block.
struct Blocks {
  bool contiguous = false;
  uint64_t base = 0;   // all-reduce: block 0; else the chunk's offset inside a part
  uint64_t real = 0;   // all-reduce: bytes per block
  uint64_t total = 0;  // all-reduce: S (the last blocks may be short or empty)
  uint64_t part = 0;   // reduce-scatter, all-gather: S / n
  uint64_t bytes = 0;  // reduce-scatter, all-gather: bytes of the chunk in each part
};

// Per channel and rank: the connection to and from the partner at mask 2^i, by i.
struct Partners {
  std::vector<uint32_t> to;
  std::vector<uint32_t> from;
};

// Emits the ops moving blocks [lo, lo + m); `dep` gates the first. Returns the last op's id.
uint32_t move(ScheduleBuilder& b, const Blocks& k, uint8_t flags, Phase ph, int lo, int m,
              uint32_t send, uint32_t recv, uint32_t dep) {
  const std::span<const uint32_t> sends(&send, send == kNone ? 0 : 1);
  const std::span<const uint32_t> recvs(&recv, recv == kNone ? 0 : 1);
  const auto first = static_cast<uint64_t>(lo);
  if (k.contiguous) {
    const uint64_t off = k.base + first * k.real;
    const uint64_t len = clamp_len(k.total, off, static_cast<uint64_t>(m) * k.real);
    return b.chunk(flags, ph, off, len, sends, recvs, 0, dep);
  }
  uint32_t last = kNone;
  for (uint64_t j = first; j < first + static_cast<uint64_t>(m); ++j) {
    last =
        b.chunk(flags, ph, j * k.part + k.base, k.bytes, sends, recvs, 0, j == first ? dep : kNone);
  }
  return last;
}

int log2_of(int n) { return std::countr_zero(static_cast<unsigned>(n)); }

// The receiving lane of one loop: halving steps reduce the kept half, doubling steps store the
// partner's segment. Appends each step's last op id to `done`.
void receive_loop(ScheduleBuilder& b, const Blocks& k, int r, const Partners& p,
                  std::vector<uint32_t>& done) {
  const Kind kind = b.geo().kind;
  const int n = b.size();
  if (kind != Kind::kAllGather) {
    for (int m = n / 2; m >= 1; m /= 2) {  // keep the half holding r, [r & ~(m-1), +m)
      done.push_back(move(b, k, kRecvReduceCopy, Phase::kReduceScatter, r & ~(m - 1), m, kNone,
                          p.from[static_cast<size_t>(log2_of(m))], kNone));
    }
  }
  if (kind != Kind::kReduceScatter) {
    for (int m = 1; m < n; m *= 2) {  // the partner's segment, [(r ^ m) & ~(m-1), +m)
      done.push_back(move(b, k, kRecvOnly, Phase::kAllGather, (r ^ m) & ~(m - 1), m, kNone,
                          p.from[static_cast<size_t>(log2_of(m))], kNone));
    }
  }
}

// The sending lane of one loop; `done` holds the receiving lane's step ids of the same loop.
void send_loop(ScheduleBuilder& b, const Blocks& k, int r, const Partners& p,
               const uint32_t* done) {
  const Kind kind = b.geo().kind;
  const int n = b.size();
  uint32_t dep = kNone;  // the receive that produced the data the next send reads
  if (kind != Kind::kAllGather) {
    for (int m = n / 2; m >= 1; m /= 2) {  // the half the partner keeps
      move(b, k, kSendOnly, Phase::kReduceScatter, (r ^ m) & ~(m - 1), m,
           p.to[static_cast<size_t>(log2_of(m))], kNone, dep);
      dep = *done++;
    }
  }
  if (kind != Kind::kReduceScatter) {
    for (int m = 1; m < n; m *= 2) {  // everything r owns, [r & ~(m-1), +m)
      move(b, k, kSendOnly, Phase::kAllGather, r & ~(m - 1), m,
           p.to[static_cast<size_t>(log2_of(m))], kNone, dep);
      dep = *done++;
    }
  }
}

}  // namespace

std::string halving_doubling_refuses(const Geometry& g) {
  const size_t n = g.ranks.size();
  if (std::has_single_bit(n)) return {};
  return "halving-doubling needs a power-of-two group (2, 4, 8, ... GPUs), not " +
         std::to_string(n) + " GPUs; run ring or direct on it";
}

Schedule make_halving_doubling(const Geometry& g) {
  if (const std::string why = halving_doubling_refuses(g); !why.empty()) {
    throw ConfigError("collectives", "/algorithm", why);
  }
  ScheduleBuilder b(g);
  const int n = b.size();
  if (n < 2) return b.take();
  const auto nn = static_cast<uint64_t>(n);
  const int steps = log2_of(n);
  const bool ar = g.kind == Kind::kAllReduce;
  // All-reduce: the largest op (n/2 blocks) stays within one chunk; else one chunk per block op.
  const uint64_t block =
      ar ? std::max(kChunkAlign, 2 * g.chunk / nn / kChunkAlign * kChunkAlign) : g.chunk;
  const uint64_t part = g.bytes / nn;
  const std::vector<Loop> loops =
      ar ? make_loops(g.bytes, g.channels, nn, block) : make_loops(part, g.channels, 1, block);
  const uint64_t per_loop = ar ? 2 * static_cast<uint64_t>(steps) : nn - 1;
  b.expect(2 * g.channels * nn, saturating_mul(loops.size(), per_loop));
  // Connections: channel c, rank r -> r ^ 2^i.
  std::vector<uint32_t> conn(g.channels * nn * static_cast<size_t>(steps));
  auto id = [&](uint32_t c, int r, int i) -> uint32_t& {
    return conn[(c * nn + static_cast<size_t>(r)) * static_cast<size_t>(steps) +
                static_cast<size_t>(i)];
  };
  for (uint32_t c = 0; c < g.channels; ++c) {
    for (int r = 0; r < n; ++r) {
      for (int i = 0; i < steps; ++i) id(c, r, i) = b.connect(r, r ^ (1 << i));
    }
  }
  auto blocks = [&](const Loop& lp, uint32_t c) {
    Blocks k;
    k.contiguous = ar;
    if (ar) {
      k.base = lp.grid + c * nn * lp.real;
      k.real = lp.real;
      k.total = g.bytes;
    } else {
      k.base = lp.grid + c * lp.real;
      k.part = part;
      k.bytes = clamp_len(part, k.base, lp.real);
    }
    return k;
  };
  std::vector<uint32_t> done;
  for (uint32_t c = 0; c < g.channels; ++c) {
    for (int r = 0; r < n; ++r) {
      Partners p;
      for (int i = 0; i < steps; ++i) {
        p.to.push_back(id(c, r, i));
        p.from.push_back(id(c, r ^ (1 << i), i));
      }
      done.clear();
      b.open_lane(r, c);  // receiving first: the sends name its ops as dependencies
      for (const Loop& lp : loops) receive_loop(b, blocks(lp, c), r, p, done);
      b.open_lane(r, c);
      const size_t per = done.size() / loops.size();
      for (size_t l = 0; l < loops.size(); ++l)
        send_loop(b, blocks(loops[l], c), r, p, &done[l * per]);
    }
  }
  return b.take();
}

}  // namespace t3sim::collectives
