// Subcommands whose implementation is in progress (each moves to its own file).
#include "cli/commands.h"
#include "sim/errors.h"

namespace t3sim::cli {

int cmd_trace(const Args&, const Env&) { throw UsageError("trace: not built yet"); }
int cmd_replay(const Args&, const Env&) { throw UsageError("replay: not built yet"); }
int cmd_validate(const Args&, const Env&) { throw UsageError("validate: not built yet"); }
int cmd_calibrate(const Args&, const Env&) { throw UsageError("calibrate: not built yet"); }

}  // namespace t3sim::cli
