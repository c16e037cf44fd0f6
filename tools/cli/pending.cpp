// Subcommands whose implementation is in progress (each moves to its own file).
#include "cli/commands.h"
#include "sim/errors.h"

namespace t3sim::cli {}  // namespace t3sim::cli
