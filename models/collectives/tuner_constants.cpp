#include "models/collectives/tuner_constants.h"

#include <cmath>
#include <string>

namespace t3sim::collectives {
namespace {

constexpr double kPpmScale = 1'000'000.0;
// proto_index() order (library.h): simple, ll128, ll.
constexpr std::array<const char*, 3> kTunerProtos{"simple", "ll128", "ll"};
constexpr std::array<const char*, 3> kAlgos{"ring", "tree", "nvls"};

uint32_t ppm(double share) { return static_cast<uint32_t>(std::llround(share * kPpmScale)); }

Params cell_params() {
  Params p;
  p.required("base", ParamKind::kDuration, "base latency, once per collective (NCCL baseLat)");
  p.required("nvlink", ParamKind::kDuration, "per-step latency of an NVLink hop (NCCL hwLat)");
  p.required("pci", ParamKind::kDuration, "per-step latency of a PCI hop (NCCL hwLat)");
  p.required("net", ParamKind::kDuration, "per-step latency of a network hop (NCCL hwLat)");
  p.required("share", ParamKind::kReal,
             "share of the bus bandwidth this protocol reaches on this algorithm (LL 1/4 or 1/2, "
             "LL128 0.92, ...)")
      .range(0.0, 1.0);
  p.optional("channel_max", ParamKind::kBandwidth, "0 GB/s",
             "per-channel cap of the bus bandwidth (NCCL perChMax*Bw); 0: none");
  return p;
}

Params algo_params(const std::string& algo) {
  Params p;
  for (const char* x : kTunerProtos) {
    p.optional(
        x, ParamKind::kObject, nullptr,
        algo + " with " + x + ": latencies and bandwidth share (absent: NCCL has no such pair)");
  }
  return p;
}

TunerCell bind_cell(const ConfigNode& node) {
  const BoundParams b = bind(cell_params(), node);
  TunerCell c;
  c.base = b.duration("base");
  c.hw = {b.duration("nvlink"), b.duration("pci"), b.duration("net")};
  c.share_ppm = ppm(b.real("share"));
  c.channel_max = b.bandwidth("channel_max");
  return c;
}

}  // namespace

Params tuner_params() {
  Params p;
  p.required(
      "ring", ParamKind::kObject,
      "NCCL's Ring cells: {simple, ll128, ll} x {base, nvlink, pci, net, share, channel_max}");
  p.required("tree", ParamKind::kObject, "NCCL's Tree cells (all-reduce across nodes)");
  p.optional("nvls", ParamKind::kObject, nullptr,
             "NCCL's NVLS cell (Simple only; used when the system can reduce in its switch)");
  p.required("ll_max_bandwidth", ParamKind::kBandwidth,
             "cap of LL's bus bandwidth on this GPU generation (NCCL llMaxBw)");
  p.required("bus_share", ParamKind::kReal,
             "share of the planned ring bandwidth (channel plan x link efficiency) that NCCL's "
             "model credits the group with (its graph bandwidth)")
      .range(0.01, 1.0);
  p.required("ring_multi_node_simple", ParamKind::kReal,
             "factor on the ring's Simple latency for all-reduces across nodes (NCCL's ring "
             "plateau)")
      .range(1.0, 4.0);
  p.required("tree_correction", ParamKind::kObject,
             "Tree all-reduce bandwidth factors {simple, ll128, ll}, each a list by power-of-two "
             "size from 64 B (NCCL's treeCorrectionFactor)");
  return p;
}

TunerConstants bind_tuner(const ConfigNode& node) {
  const BoundParams b = bind(tuner_params(), node);
  TunerConstants t;
  for (size_t a = 0; a < kAlgos.size(); ++a) {
    if (!b.present(kAlgos[a])) continue;
    const ConfigNode algo = b.node(kAlgos[a]);
    const BoundParams ab = bind(algo_params(kAlgos[a]), algo);
    for (size_t p = 0; p < kTunerProtos.size(); ++p) {
      if (ab.present(kTunerProtos[p])) t.cells[a][p] = bind_cell(ab.node(kTunerProtos[p]));
    }
  }
  t.ll_max = b.bandwidth("ll_max_bandwidth");
  t.bus_ppm = ppm(b.real("bus_share"));
  t.ring_multi_node_simple_ppm = ppm(b.real("ring_multi_node_simple"));
  const ConfigNode corr = b.node("tree_correction");
  for (size_t p = 0; p < kTunerProtos.size(); ++p) {
    if (!corr.has(kTunerProtos[p])) continue;
    const ConfigNode list = corr.child(kTunerProtos[p]);
    if (!list.json().is_array()) list.fail("must be a list of factors in (0, 1]");
    for (size_t i = 0; i < list.size(); ++i) {
      const ConfigNode f = list.at(i);
      if (!f.json().is_number() || f.json().get<double>() <= 0 || f.json().get<double>() > 1) {
        f.fail("must be a factor in (0, 1]");
      }
      t.tree_correction_ppm[p].push_back(ppm(f.json().get<double>()));
    }
  }
  return t;
}

}  // namespace t3sim::collectives
