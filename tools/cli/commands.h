// The t3sim subcommands. Each lives in its own file under tools/cli/ and parses its own options
// (Boost.Program_options). A command returns its exit code (0 ok); bad input is reported by
// throwing ConfigError or UsageError, which main() turns into one line and exit code 2. The work
// itself is one call into the studies (studies) or validation (studies/validation) library; the
// command parses, calls and prints.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "studies/env.h"

namespace t3sim::cli {

// The studies' input paths plus what only the CLI needs (whether progress may redraw a line).
struct Env : studies::Env {
  bool stderr_is_tty = false;
};

using Args = std::vector<std::string>;

int cmd_version(const Args& args, const Env& env);
int cmd_check(const Args& args, const Env& env);
int cmd_describe(const Args& args, const Env& env);
int cmd_modes(const Args& args, const Env& env);
int cmd_run(const Args& args, const Env& env);
int cmd_gemm(const Args& args, const Env& env);
int cmd_membw(const Args& args, const Env& env);
int cmd_contention(const Args& args, const Env& env);
int cmd_p2p(const Args& args, const Env& env);
int cmd_nccl_tests(const Args& args, const Env& env);
int cmd_sublayer(const Args& args, const Env& env);
int cmd_trace(const Args& args, const Env& env);
int cmd_replay(const Args& args, const Env& env);
int cmd_reproduce(const Args& args, const Env& env);
int cmd_sweep(const Args& args, const Env& env);
int cmd_validate(const Args& args, const Env& env);
int cmd_calibrate(const Args& args, const Env& env);

}  // namespace t3sim::cli
