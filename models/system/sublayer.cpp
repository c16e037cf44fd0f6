#include "models/system/sublayer.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "models/common/mirror.h"
#include "models/system/collective_launch.h"
#include "models/system/mode_runners.h"
#include "models/system/scenario.h"
#include "sim/atomic_file.h"
#include "sim/errors.h"

namespace t3sim::system {
// Adds a scenario's traffic and event counts to a result.
void absorb_into(SublayerResult& r, Scenario& sc) {
  r.folded = sc.folded();
  r.simulated_gpus = sc.active();
  const auto d = sc.dram_bytes();
  for (size_t c = 0; c < d.size(); ++c) r.dram_bytes[c] += d[c];
  r.dram_total += sc.dram_total();
  r.link_bytes += sc.link_bytes();
  r.events += sc.sim().events();
  const GemmWgTime w = sc.gemm_wg_time();
  const uint64_t total = w.compute_ps + w.memory_stall_ps + w.pipeline_ps;
  if (total != 0) {
    r.gemm_memory_stall_share = static_cast<double>(w.memory_stall_ps) / static_cast<double>(total);
  }
}

void keep_outputs(SublayerResult& r, Scenario& sc, const RunOptions& opts) {
  if (opts.timeline) {
    const auto& hbm = sc.system().hbm(0);
    r.timeline = hbm.timeline();
    r.timeline_bin_us = hbm.timeline_bin().to_us();
  }
  if (opts.stats) r.stats = sc.sim().dump(sc.system().resolved());
}

namespace {

// Why a run asked to fold cannot, known before it is built ("" = it may fold).
std::string fold_refusal(const ConfigDoc& doc, bool dma) {
  if (dma) return "cannot fold: DMA-engine collectives";
  if (!can_fold(doc, Piece::kGemm)) {
    return "cannot fold: the fabric is not the same from every GPU or node";
  }
  return "";
}

// When `asked`, runs `run(true)` (folded) unless `refusal` rules it out, falling back to
// `run(false)` if the run cannot fold; `opts.before_full` hears why before the full run.
template <class F>
SublayerResult folded_or_full(bool asked, const std::string& refusal, const RunOptions& opts,
                              F run) {
  if (asked && refusal.empty()) {
    try {
      return run(true);
    } catch (const common::FoldError& e) {
      if (opts.before_full) opts.before_full(e.what());
    }
  } else if (asked && opts.before_full) {
    opts.before_full(refusal);
  }
  return run(false);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

SublayerResult run_sublayer(const ConfigDoc& doc, const SublayerSpec& spec, Mode mode,
                            const RunOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  check_sublayer_collectives(doc);
  auto tracer = opts.trace_path.empty() ? nullptr : std::make_unique<Timeline>(opts.trace_options);
  const ModeSpec& row = mode_spec(mode);
  // A trace shows every GPU; composed modes let each piece decide.
  const bool asked = spec.fold && !tracer && row.simulated;
  SublayerResult r =
      folded_or_full(asked, asked ? fold_refusal(doc, false) : "", opts, [&](bool f) {
        return row.run(ModeRun{doc, spec, row, opts, tracer.get(), f});
      });
  r.mode = mode;
  r.wall_s = seconds_since(t0);
  if (tracer) {
    write_file_atomic(opts.trace_path, tracer->json());
    r.trace_events_dropped = tracer->dropped();
  }
  return r;
}

SublayerResult run_composed(const ModeRun& run) {
  RunOptions piece_opts;
  piece_opts.stats = run.opts.stats;
  piece_opts.before_full = run.opts.before_full;
  const SublayerResult gemm = run_piece(run.doc, run.spec, Piece::kGemm, piece_opts);
  const SublayerResult rs = run_piece(run.doc, run.spec, run.mode.rs_piece, piece_opts);
  const SublayerResult ag = run_piece(run.doc, run.spec, Piece::kAgCu, piece_opts);
  SublayerResult r = run.mode.compose(gemm, rs, ag);
  if (!run.opts.stats) return r;
  // Three separate simulations: one config, the sums of their clocks and events, and each run's
  // stats tree under its name (conservation holds within each).
  r.stats["config"] = gemm.stats["config"];
  uint64_t ticks = 0, events = 0;
  for (const SublayerResult* p : {&gemm, &rs, &ag}) {
    ticks += p->stats["sim"]["ticks_ps"].get<uint64_t>();
    events += p->stats["sim"]["events"].get<uint64_t>();
  }
  r.stats["sim"] = {{"ticks_ps", ticks},
                    {"events", events},
                    {"seed", gemm.stats["sim"]["seed"]},
                    {"runs", "gemm, reduce_scatter and all_gather, each simulated alone from 0"}};
  r.stats["stats"] = {{"gemm", gemm.stats["stats"]},
                      {"reduce_scatter", rs.stats["stats"]},
                      {"all_gather", ag.stats["stats"]}};
  return r;
}

namespace {

CollOp op_of(Piece p) {
  return p == Piece::kAgCu   ? CollOp::kAllGather
         : p == Piece::kArCu ? CollOp::kAllReduce
                             : CollOp::kReduceScatter;
}

// One isolated piece on a scenario whose GEMM buffers are allocated (collective pieces run on the
// GEMM's output buffer, so they see the same HBM channel mapping as in the modes).
SublayerResult run_piece_once(const ConfigDoc& doc, const SublayerSpec& s, Piece piece, bool fold,
                              const RunOptions& opts) {
  SublayerResult r;
  Scenario sc(doc, s.seed, nullptr, fold);
  sc.allocate(s.shape, s.elem_bytes);
  std::unique_ptr<CollectiveRun> run;
  if (piece == Piece::kGemm) {
    for (int g = 0; g < sc.active(); ++g) {
      sc.launch_local_gemm(g, s.shape, s.elem_bytes, sc.spec().cus, nullptr);
    }
  } else {
    run = launch_collective(sc, op_of(piece),
                            piece == Piece::kRsNmc ? CollExec::kDmaNmc : CollExec::kCu,
                            output_bytes(s), s.elem_bytes, sc.c_addrs(), 0, nullptr);
  }
  sc.run();
  absorb_into(r, sc);
  keep_outputs(r, sc, opts);
  r.total_us =
      run ? (run->finished() - run->started()).to_us() : (sc.last_gemm_done() - Tick{}).to_us();
  if (piece == Piece::kGemm) r.gemm_us = r.total_us;
  if (piece == Piece::kRsCu || piece == Piece::kRsNmc) r.rs_us = r.total_us;
  if (piece == Piece::kAgCu) r.ag_us = r.total_us;
  return r;
}

SublayerResult run_collective_once(const ConfigDoc& doc, const CollectiveJob& job, bool fold) {
  SublayerResult r;
  Scenario sc(doc, job.seed, nullptr, fold);
  std::vector<uint64_t> addrs;
  for (auto& node : sc.machine().gpus) addrs.push_back(node.alloc->allocate(job.bytes));
  auto run = launch_collective(sc, job.op, job.exec, job.bytes, job.elem_bytes, addrs, 0, nullptr);
  sc.run();
  absorb_into(r, sc);
  r.total_us = (run->finished() - run->started()).to_us();
  (job.op == CollOp::kAllGather ? r.ag_us : r.rs_us) = r.total_us;
  return r;
}

}  // namespace

SublayerResult run_piece(const ConfigDoc& doc, const SublayerSpec& s, Piece piece,
                         const RunOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  check_sublayer_collectives(doc);
  const std::string refusal = s.fold ? fold_refusal(doc, piece == Piece::kRsNmc) : "";
  SublayerResult r = folded_or_full(s.fold, refusal, opts,
                                    [&](bool f) { return run_piece_once(doc, s, piece, f, opts); });
  r.wall_s = seconds_since(t0);
  return r;
}

SublayerResult run_collective(const ConfigDoc& doc, const CollectiveJob& job) {
  const auto t0 = std::chrono::steady_clock::now();
  check_sublayer_collectives(doc);
  const std::string refusal = job.fold ? fold_refusal(doc, job.exec != CollExec::kCu) : "";
  SublayerResult r = folded_or_full(job.fold, refusal, RunOptions{},
                                    [&](bool f) { return run_collective_once(doc, job, f); });
  r.wall_s = seconds_since(t0);
  return r;
}

namespace {
void add_traffic(SublayerResult& r, const SublayerResult& p) {
  for (size_t c = 0; c < r.dram_bytes.size(); ++c) r.dram_bytes[c] += p.dram_bytes[c];
  r.dram_total += p.dram_total;
  r.link_bytes += p.link_bytes;
  r.events += p.events;
  r.wall_s += p.wall_s;
  r.simulated_gpus = std::max(r.simulated_gpus, p.simulated_gpus);
}
}  // namespace

SublayerResult compose_sequential(const SublayerResult& gemm, const SublayerResult& rs,
                                  const SublayerResult& ag) {
  SublayerResult r;
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
                             const SublayerResult& ag) {
  SublayerResult r;
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
