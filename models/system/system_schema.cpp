#include "models/system/system_schema.h"

#include <array>
#include <string_view>

#include "models/collectives/library.h"
#include "models/fabric/specs.h"
#include "models/gpu/dma_engine.h"
#include "models/gpu/gpu_spec.h"
#include "models/hbm/hbm_config.h"
#include "models/system/system.h"
#include "models/t3/settings.h"

namespace t3sim::system {
namespace {

struct SchemaNode {
  std::string_view pointer;  // of the object
  Params (*params)();
};

constexpr std::array<SchemaNode, 11> kSchema{{
    {"", system_params},
    {"/gpu", gpu::gpu_params},
    {"/gpu/dma", gpu::dma_params},
    {"/hbm", hbm::hbm_params},
    {"/fabric", fabric::fabric_params},
    {"/fabric/link", fabric::link_params},
    {"/fabric/switch", fabric::switch_params},
    {"/fabric/nic", fabric::nic_params},
    {"/fabric/ib_switch", fabric::ib_switch_params},
    {"/collectives", collectives::library_params},
    {"/t3", t3::t3_params},
}};

}  // namespace

bool system_declares(const std::string& pointer) {
  const size_t slash = pointer.rfind('/');
  if (slash == std::string::npos) return false;
  const std::string_view parent(pointer.data(), slash);
  const std::string key = pointer.substr(slash + 1);
  if (key.empty() || key.find('~') != std::string::npos) return false;
  for (const SchemaNode& n : kSchema) {
    if (n.pointer == parent) return n.params().find(key) != nullptr;
  }
  return false;
}

}  // namespace t3sim::system
