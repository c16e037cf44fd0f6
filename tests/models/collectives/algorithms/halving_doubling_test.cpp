// Recursive halving-doubling (algorithms/halving_doubling.h): where every byte ends, replayed op by
// op through the schedule's connections (a reduction adds contributions, so a lost or doubled one
// shows); log2(n) steps per phase with halving sizes; refusal of groups that are not a power of
// two; and on a frozen dgx-h100 its time against the ring's at a latency-bound and a
// bandwidth-bound size.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <deque>
#include <numeric>
#include <string>
#include <vector>

#include "models/collectives/algorithms.h"
#include "models/collectives/algorithms/halving_doubling.h"
#include "models/collectives/collective.h"
#include "models/system/system.h"
#include "sim/errors.h"
#include "sim/simulator.h"
#include "tests/support/fixtures.h"

namespace t3sim::collectives {
namespace {

Geometry geo(Kind k, uint64_t bytes, int n, uint32_t channels, uint64_t chunk, uint32_t slices) {
  Geometry g;
  g.kind = k;
  g.bytes = bytes;
  g.channels = channels;
  g.ranks.resize(static_cast<size_t>(n));
  std::iota(g.ranks.begin(), g.ranks.end(), 0);
  g.chunk = chunk;
  g.slices_per_chunk = slices;
  return g;
}

// Contribution of rank r to a 4-byte element: 8 bits per rank, so sums show doubles (n <= 8).
uint64_t weight(int r) { return uint64_t{1} << (8 * r); }
uint64_t full(int n) {
  uint64_t w = 0;
  for (int r = 0; r < n; ++r) w += weight(r);
  return w;
}

// Replays `s` on per-GPU element arrays: an op runs once its dependency ran and every connection
// it receives on holds a payload; a send queues the (reduced) values, a receive takes them in
// order. Returns the arrays, or fails the test if the replay stalls.
std::vector<std::vector<uint64_t>> replay(const Schedule& s, const Geometry& g) {
  const int n = static_cast<int>(g.ranks.size());
  const uint64_t elems = g.bytes / 4;
  const uint64_t part = elems / static_cast<uint64_t>(n);
  std::vector<std::vector<uint64_t>> data(static_cast<size_t>(n), std::vector<uint64_t>(elems));
  for (int r = 0; r < n; ++r) {
    for (uint64_t e = 0; e < elems; ++e) {
      const bool own = g.kind != Kind::kAllGather || e / part == static_cast<uint64_t>(r);
      data[static_cast<size_t>(r)][e] = own ? weight(r) : 0;
    }
  }
  std::vector<std::deque<std::vector<uint64_t>>> queue(s.conns.size());
  std::vector<bool> ran(s.ops.size(), false);
  std::vector<uint32_t> next(s.lanes.size(), 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t l = 0; l < s.lanes.size(); ++l) {
      const Lane& lane = s.lanes[l];
      for (; next[l] < lane.num_ops; ++next[l]) {
        const uint32_t id = lane.first_op + next[l];
        const Op& op = s.ops[id];
        bool ready = op.dep == kNone || ran[op.dep];
        for (uint16_t k = 0; k < op.recvs; ++k) ready = ready && !queue[s.recv_conn(op, k)].empty();
        if (!ready) break;
        EXPECT_EQ(op.stride, 0u);
        std::vector<uint64_t>& local = data[static_cast<size_t>(lane.rank)];
        const uint64_t at = op.offset / 4;
        std::vector<uint64_t> v(op.bytes / 4, 0);
        if (op.flags & kReadLocal) std::copy_n(local.begin() + at, v.size(), v.begin());
        for (uint16_t k = 0; k < op.recvs; ++k) {
          auto& q = queue[s.recv_conn(op, k)];
          EXPECT_EQ(q.front().size(), v.size()) << "slice sizes differ on a connection";
          for (size_t e = 0; e < v.size() && e < q.front().size(); ++e) v[e] += q.front()[e];
          q.pop_front();
        }
        if (op.flags & kWriteLocal) std::copy(v.begin(), v.end(), local.begin() + at);
        for (uint16_t k = 0; k < op.sends; ++k) queue[s.send_conn(op, k)].push_back(v);
        ran[id] = true;
        progress = true;
      }
    }
  }
  for (size_t l = 0; l < s.lanes.size(); ++l) {
    EXPECT_EQ(next[l], s.lanes[l].num_ops) << "lane " << l << " stalled";
  }
  return data;
}

// Every element where the kind leaves a result holds exactly that result.
void expect_result(const Schedule& s, const Geometry& g) {
  const int n = static_cast<int>(g.ranks.size());
  const auto data = replay(s, g);
  const uint64_t part = g.bytes / 4 / static_cast<uint64_t>(n);
  size_t wrong = 0;
  for (int r = 0; r < n; ++r) {
    const auto& d = data[static_cast<size_t>(r)];
    for (uint64_t e = 0; e < d.size(); ++e) {
      const auto p = static_cast<int>(e / part);
      if (g.kind == Kind::kAllReduce) wrong += d[e] != full(n);
      if (g.kind == Kind::kReduceScatter && p == r) wrong += d[e] != full(n);
      if (g.kind == Kind::kAllGather) wrong += d[e] != weight(p);
    }
  }
  EXPECT_EQ(wrong, 0u) << to_string(g.kind) << " on " << n << " GPUs";
}

TEST(HalvingDoubling, EveryRankEndsWithTheReducedOrGatheredBuffer) {
  for (const int n : {2, 4, 8}) {
    for (const Kind k : {Kind::kAllReduce, Kind::kReduceScatter, Kind::kAllGather}) {
      // Several loops of two channels, a size off the chunk grid, two slices per chunk.
      const Geometry g = geo(k, uint64_t{4} * 1000 * 96, n, 2, 32 << 10, 2);
      expect_result(make_halving_doubling(g), g);
    }
  }
  // The replay itself: the ring's all-reduce passes it, a ring cut short does not.
  const Geometry ring = geo(Kind::kAllReduce, uint64_t{4} * 1000 * 96, 4, 2, 32 << 10, 2);
  expect_result(make_ring(ring), ring);
  Schedule cut = make_ring(ring);
  cut.ops[cut.lanes[0].first_op + cut.lanes[0].num_ops - 1].flags &= ~kWriteLocal;
  EXPECT_NONFATAL_FAILURE(expect_result(cut, ring), "wrong");
}

TEST(HalvingDoubling, EachPhaseIsLog2NStepsWithHalvingSizes) {
  const int n = 8;
  const uint64_t S = 1 << 20;
  const Geometry g = geo(Kind::kAllReduce, S, n, 1, 4 << 20, 1);  // one loop, one slice per op
  const Schedule s = make_halving_doubling(g);
  ASSERT_EQ(s.lanes.size(), 2u * n);  // a receiving and a sending lane per GPU
  for (const Lane& l : s.lanes) {
    ASSERT_EQ(l.num_ops, 6u);  // log2(8) halving steps, then log2(8) doubling steps
    for (uint32_t i = 0; i < 3; ++i) {
      const Op& rs = s.ops[l.first_op + i];
      const Op& ag = s.ops[l.first_op + 3 + i];
      EXPECT_EQ(rs.bytes, S >> (i + 1));  // S/2, S/4, S/8: the halves shrink
      EXPECT_EQ(ag.bytes, S >> (3 - i));  // S/8, S/4, S/2: what a rank owns doubles
      EXPECT_EQ(rs.phase, Phase::kReduceScatter);
      EXPECT_EQ(ag.phase, Phase::kAllGather);
      const bool sending = (rs.flags & kSend) != 0;
      const Conn& c = s.conns[sending ? s.send_conn(rs, 0) : s.recv_conn(rs, 0)];
      EXPECT_EQ(c.src ^ c.dst, n >> (i + 1));  // partners at distance 4, 2, 1
    }
  }
  uint64_t sent = 0;
  for (const Op& op : s.ops) sent += op.bytes * op.sends;
  EXPECT_EQ(sent, n * 2 * (n - 1) * S / n);  // the ring's volume: 2(n-1)/n of S per GPU
}

TEST(HalvingDoubling, RefusesGroupsThatAreNotAPowerOfTwo) {
  const Geometry six = geo(Kind::kAllReduce, 6 << 20, 6, 1, 1 << 20, 1);
  EXPECT_NE(halving_doubling_refuses(six).find("power-of-two"), std::string::npos);
  EXPECT_THROW(make_halving_doubling(six), ConfigError);
  EXPECT_EQ(halving_doubling_refuses(geo(Kind::kAllReduce, 8 << 20, 8, 1, 1 << 20, 1)), "");
  EXPECT_EQ(parse_algo("halving-doubling", "test"), algo_of_row(algorithm_table().size() - 1));
}

// Run on the frozen dgx-h100 (8 H100 on NVSwitch): time in us; throws what Collective throws.
double run_us(Algo algo, uint64_t bytes, int gpus = 8) {
  const ConfigDoc doc = system::load_system_config("dgx-h100", t3sim::testing::fixtures_dir());
  Simulator sim;
  system::System sys(sim, ConfigNode::root(doc));
  CollectiveSpec s;
  s.bytes = bytes;
  s.algo = algo;
  s.group.resize(static_cast<size_t>(gpus));
  std::iota(s.group.begin(), s.group.end(), 0);
  Collective c(sim, &sys, "coll", sys.machine(), sys.collectives(), s);
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  EXPECT_TRUE(c.done());
  return c.elapsed().to_us();
}

TEST(HalvingDoubling, BeatsTheRingWhereStepsCostAndNotWhereBandwidthDoes) {
  const Algo hd = parse_algo("halving-doubling", "test");
  // 64 KiB: latency-bound; 6 dependent steps per GPU instead of the ring's 14.
  EXPECT_LT(run_us(hd, 64 << 10), run_us(Algo::kRing, 64 << 10));
  // 64 MiB: both move 2(n-1)/n of S per GPU over the same links, so halving-doubling gains
  // little if anything on the ring.
  EXPECT_GT(run_us(hd, 64 << 20), 0.9 * run_us(Algo::kRing, 64 << 20));
  // A group of 6 is refused with the one-line reason.
  try {
    run_us(hd, 6 << 20, 6);
    ADD_FAILURE() << "6 GPUs accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("power-of-two"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace t3sim::collectives
