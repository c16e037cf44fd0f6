#include "cli/registry_setup.h"

#include "models/collectives/library.h"
#include "models/fabric/factory.h"
#include "models/gpu/register.h"
#include "models/hbm/hbm.h"
#include "models/system/system.h"
#include "models/tracker/tracker.h"

namespace t3sim::cli {

Registry make_registry() {
  Registry r;
  gpu::register_gpu_models(r);
  hbm::register_hbm_models(r);
  fabric::register_fabric_models(r);
  collectives::register_collectives_models(r);
  tracker::register_tracker_models(r);
  system::register_system_models(r);
  return r;
}

}  // namespace t3sim::cli
