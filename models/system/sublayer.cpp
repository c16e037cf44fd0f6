#include "models/system/sublayer.h"

#include <chrono>
#include <memory>

#include "models/common/mirror.h"
#include "models/system/collective_launch.h"
#include "models/system/fused_run.h"
#include "models/system/scenario.h"
#include "sim/atomic_file.h"
#include "sim/errors.h"

namespace t3sim::system {
namespace {

uint64_t output_bytes(const SublayerSpec& s) { return s.shape.m * s.shape.n * s.elem_bytes; }

double us(Duration d) { return d.to_us(); }

}  // namespace

// Adds a scenario's traffic and event counts to a result.
void absorb_into(SublayerResult& r, Scenario& sc) {
  r.folded = sc.folded();
  const auto d = sc.dram_bytes();
  for (size_t c = 0; c < d.size(); ++c) r.dram_bytes[c] += d[c];
  r.dram_total += sc.dram_total();
  r.link_bytes += sc.link_bytes();
  r.events += sc.sim().events();
}

void keep_outputs(SublayerResult& r, Scenario& sc, const RunOptions& opts) {
  if (opts.timeline) {
    const auto& hbm = sc.system().hbm(0);
    r.timeline = hbm.timeline();
    r.timeline_bin_us = hbm.config().timeline_bin.to_us();
  }
  if (opts.stats) r.stats = sc.sim().dump(sc.system().resolved());
}

namespace {

SublayerResult run_sequential(const ConfigDoc& doc, const SublayerSpec& s, const RunOptions& o,
                              TraceWriter* tracer, bool fold) {
  SublayerResult r;
  r.mode = Mode::kSequential;
  Scenario sc(doc, s.seed, tracer, fold);
  sc.allocate(s.shape, s.elem_bytes);
  std::unique_ptr<CollectiveRun> rs, ag;
  const auto addrs = sc.c_addrs();
  Join join(sc.active(), [&] {
    rs = launch_collective(sc, CollOp::kReduceScatter, CollExec::kCu, output_bytes(s), addrs, 0,
                           [&] {
                             ag = launch_collective(sc, CollOp::kAllGather, CollExec::kCu,
                                                    output_bytes(s), addrs, 0, nullptr);
                           });
  });
  for (int g = 0; g < sc.active(); ++g) {
    sc.launch_local_gemm(g, s.shape, s.elem_bytes, sc.spec().cus, &join);
  }
  sc.run();
  absorb_into(r, sc);
  keep_outputs(r, sc, o);
  const Tick gemm_end = sc.last_gemm_done();
  r.gemm_us = us(gemm_end - Tick{});
  r.rs_us = us(rs->finished() - rs->started());
  r.rs_exposed_us = us(rs->finished() - gemm_end);
  r.ag_us = us(ag->finished() - ag->started());
  r.total_us = us(ag->finished() - Tick{});
  return r;
}

SublayerResult run_cu_split(const ConfigDoc& doc, const SublayerSpec& s, const RunOptions& o,
                            TraceWriter* tracer, bool fold) {
  SublayerResult r;
  r.mode = Mode::kCuSplit;
  Scenario sc(doc, s.seed, tracer, fold);
  sc.allocate(s.shape, s.elem_bytes);
  if (s.ar_cus == 0 || s.ar_cus >= sc.spec().cus) {
    throw ConfigError(
        "", "/ar_cus",
        "cu-split needs 1 <= ar_cus < " + std::to_string(sc.spec().cus) + " (the GPU's CUs)");
  }
  Join join(sc.active(), nullptr);
  for (int g = 0; g < sc.active(); ++g) {
    sc.launch_local_gemm(g, s.shape, s.elem_bytes, sc.spec().cus - s.ar_cus, &join);
  }
  auto ar = launch_collective(sc, CollOp::kAllReduce, CollExec::kCu, output_bytes(s), sc.c_addrs(),
                              s.ar_cus, nullptr);
  sc.run();
  absorb_into(r, sc);
  keep_outputs(r, sc, o);
  r.gemm_us = us(sc.last_gemm_done() - Tick{});
  r.rs_us = us(ar->finished() - ar->started());  // the whole all-reduce here
  r.total_us = us(max(sc.last_gemm_done(), ar->finished()) - Tick{});
  r.rs_exposed_us = std::max(0.0, r.total_us - r.gemm_us);
  return r;
}

// Runs `run(true)` (folded) when `want`, falling back to `run(false)` if the run cannot fold.
template <class F>
SublayerResult folded_or_full(bool want, F run) {
  if (want) {
    try {
      return run(true);
    } catch (const common::FoldError&) {
    }
  }
  return run(false);
}

}  // namespace

SublayerResult run_sublayer(const ConfigDoc& doc, const SublayerSpec& spec, Mode mode,
                            const RunOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  auto tracer = opts.trace_path.empty() ? nullptr : std::make_unique<TraceWriter>();
  const bool fold = spec.fold && !tracer;  // a trace shows every GPU
  SublayerResult r;
  switch (mode) {
    case Mode::kSequential:
      r = folded_or_full(fold,
                         [&](bool f) { return run_sequential(doc, spec, opts, tracer.get(), f); });
      break;
    case Mode::kIdeal:
    case Mode::kIdealNmc: {
      const bool nmc = mode == Mode::kIdealNmc;
      r = compose_ideal(run_piece(doc, spec, Piece::kGemm),
                        run_piece(doc, spec, nmc ? Piece::kRsNmc : Piece::kRsCu),
                        run_piece(doc, spec, Piece::kAgCu), nmc);
      break;
    }
    case Mode::kCuSplit:
      r = folded_or_full(fold,
                         [&](bool f) { return run_cu_split(doc, spec, opts, tracer.get(), f); });
      break;
    case Mode::kDecomposed:
      r = folded_or_full(fold,
                         [&](bool f) { return run_decomposed(doc, spec, opts, tracer.get(), f); });
      break;
    case Mode::kT3:
    case Mode::kT3Mca:
    case Mode::kT3Direct:
      r = folded_or_full(fold,
                         [&](bool f) { return run_fused(doc, spec, mode, opts, tracer.get(), f); });
      break;
  }
  r.mode = mode;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (tracer) write_file_atomic(opts.trace_path, tracer->json());
  return r;
}

namespace {

SublayerResult run_piece_once(const ConfigDoc& doc, const SublayerSpec& s, Piece piece, bool fold) {
  SublayerResult r;
  Scenario sc(doc, s.seed, nullptr, fold);
  sc.allocate(s.shape, s.elem_bytes);
  std::unique_ptr<CollectiveRun> run;
  if (piece == Piece::kGemm) {
    for (int g = 0; g < sc.active(); ++g) {
      sc.launch_local_gemm(g, s.shape, s.elem_bytes, sc.spec().cus, nullptr);
    }
  } else {
    const CollOp op = piece == Piece::kAgCu   ? CollOp::kAllGather
                      : piece == Piece::kArCu ? CollOp::kAllReduce
                                              : CollOp::kReduceScatter;
    run = launch_collective(sc, op, piece == Piece::kRsNmc ? CollExec::kDmaNmc : CollExec::kCu,
                            output_bytes(s), sc.c_addrs(), 0, nullptr);
  }
  sc.run();
  absorb_into(r, sc);
  r.total_us = run ? us(run->finished() - run->started()) : us(sc.last_gemm_done() - Tick{});
  if (piece == Piece::kGemm) r.gemm_us = r.total_us;
  if (piece == Piece::kRsCu || piece == Piece::kRsNmc) r.rs_us = r.total_us;
  if (piece == Piece::kAgCu) r.ag_us = r.total_us;
  return r;
}

}  // namespace

SublayerResult run_piece(const ConfigDoc& doc, const SublayerSpec& s, Piece piece) {
  const auto t0 = std::chrono::steady_clock::now();
  SublayerResult r =
      folded_or_full(s.fold, [&](bool f) { return run_piece_once(doc, s, piece, f); });
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

namespace {
void add_traffic(SublayerResult& r, const SublayerResult& p) {
  for (size_t c = 0; c < r.dram_bytes.size(); ++c) r.dram_bytes[c] += p.dram_bytes[c];
  r.dram_total += p.dram_total;
  r.link_bytes += p.link_bytes;
  r.events += p.events;
  r.wall_s += p.wall_s;
}
}  // namespace

SublayerResult compose_sequential(const SublayerResult& gemm, const SublayerResult& rs,
                                  const SublayerResult& ag) {
  SublayerResult r;
  r.mode = Mode::kSequential;
  r.gemm_us = gemm.total_us;
  r.rs_us = rs.total_us;
  r.rs_exposed_us = rs.total_us;
  r.ag_us = ag.total_us;
  r.total_us = r.gemm_us + r.rs_us + r.ag_us;
  for (const SublayerResult* p : {&gemm, &rs, &ag}) add_traffic(r, *p);
  r.folded = gemm.folded && rs.folded && ag.folded;
  return r;
}

void append_ag(SublayerResult& r, const SublayerResult& ag) {
  r.ag_us = ag.total_us;
  r.total_us += ag.total_us;
  add_traffic(r, ag);
  r.folded = r.folded && ag.folded;
}

SublayerResult compose_ideal(const SublayerResult& gemm, const SublayerResult& rs,
                             const SublayerResult& ag, bool nmc) {
  SublayerResult r;
  r.mode = nmc ? Mode::kIdealNmc : Mode::kIdeal;
  r.gemm_us = gemm.total_us;
  r.rs_us = rs.total_us;
  r.ag_us = ag.total_us;
  r.rs_exposed_us = std::max(0.0, r.rs_us - r.gemm_us);
  r.total_us = std::max(r.gemm_us, r.rs_us) + r.ag_us;
  for (const SublayerResult* p : {&gemm, &rs, &ag}) add_traffic(r, *p);
  r.folded = gemm.folded && rs.folded && ag.folded;
  return r;
}

nlohmann::ordered_json to_json(const SublayerResult& r) {
  nlohmann::ordered_json j;
  j["mode"] = to_string(r.mode);
  j["total_us"] = r.total_us;
  j["gemm_us"] = r.gemm_us;
  j["rs_us"] = r.rs_us;
  j["rs_exposed_us"] = r.rs_exposed_us;
  j["ag_us"] = r.ag_us;
  nlohmann::ordered_json d;
  d["total"] = r.dram_total;
  for (size_t c = 0; c < r.dram_bytes.size(); ++c) {
    d[std::string(common::to_string(static_cast<common::TrafficClass>(c)))] = r.dram_bytes[c];
  }
  j["dram_bytes"] = d;
  j["link_bytes"] = r.link_bytes;
  j["tracker"] = {{"triggers", r.tracker_triggers},
                  {"max_occupancy", r.tracker_max_occupancy},
                  {"stalls", r.tracker_stalls}};
  j["events"] = r.events;
  j["wall_s"] = r.wall_s;
  j["folded"] = r.folded;
  return j;
}

}  // namespace t3sim::system
