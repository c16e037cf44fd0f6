// Registration of the GPU library's parameter sets for `t3sim describe`.
#pragma once

#include "sim/registry.h"

namespace t3sim::gpu {

void register_gpu_models(Registry& r);

}  // namespace t3sim::gpu
