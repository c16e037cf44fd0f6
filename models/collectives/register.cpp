// Registration of the collective library's parameter set for `t3sim describe`.
#include "models/collectives/algorithms.h"
#include "models/collectives/library.h"
#include "sim/registry.h"

namespace t3sim::collectives {

void register_collectives_models(Registry& r) {
  r.add(ComponentType{"collectives",
                      "collective library: schedules with NCCL's channels, chunks, slices, buffer "
                      "slots and protocols, on CU kernels or DMA engines (+NMC); algorithms:\n" +
                          algorithm_help(),
                      library_params, nlohmann::json::object(), nullptr});
  r.add(ComponentType{"tuner",
                      "NCCL's tuner constants (a collectives object's \"tuner\"): per algorithm "
                      "and protocol a base latency, per-step NVLink/PCI/network latencies and a "
                      "bandwidth share, from which auto picks the least estimated time",
                      tuner_params, nlohmann::json::object(), nullptr});
}

}  // namespace t3sim::collectives
