#include "models/system/library_collective.h"

#include <optional>

#include "models/common/mirror.h"
#include "models/fabric/fabric.h"
#include "models/system/system.h"
#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::system {
namespace {

// One run; `fold` simulates GPU 0 alone under the fabric's rotations (FoldError if it cannot).
double run_once(const ConfigDoc& doc, collectives::CollectiveSpec spec, bool fold) {
  Simulator sim;
  System sys(sim, ConfigNode::root(doc), fold ? 1 : 0);
  if (fold) {
    const std::optional<common::GpuRotation> rot = sys.fabric().symmetry();
    if (!rot) throw common::FoldError("the fabric is not the same from every GPU");
    spec.fold_rotation = *rot;
  }
  spec.fold = fold;
  collectives::Collective c(sim, &sys, "replay", sys.machine(), sys.collectives(), spec);
  if (fold) sys.machine().remote->fold(nullptr, c.fold_rotation());
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  if (!c.done()) throw ModelError(c.path(), "collective did not complete");
  return c.elapsed().to_us();
}

}  // namespace

double run_library_collective(const ConfigDoc& doc, collectives::CollectiveSpec spec) {
  // The group in machine order folds onto GPU 0 when the fabric is symmetric; a rotated group
  // (send/recv to a peer other than the next rank) or an asymmetric fabric runs every GPU.
  bool in_order = true;
  for (size_t i = 0; i < spec.group.size(); ++i) {
    in_order = in_order && spec.group[i] == static_cast<int>(i);
  }
  if (in_order) {
    try {
      return run_once(doc, spec, true);
    } catch (const common::FoldError&) {
      // not rotation-symmetric: simulate every GPU below
    }
  }
  return run_once(doc, spec, false);
}

}  // namespace t3sim::system
