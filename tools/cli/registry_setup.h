// The one place where every model library registers its component types (no static-initialiser
// registration): add a library's register_*_models call here.
#pragma once

#include "sim/registry.h"

namespace t3sim::cli {

Registry make_registry();

}  // namespace t3sim::cli
