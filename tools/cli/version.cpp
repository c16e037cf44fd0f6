// `t3sim version`: the version and the build configuration.
#include <cstdio>

#include "cli/commands.h"

namespace t3sim::cli {

int cmd_version(const Args& /*args*/, const Env& env) {
  std::printf("t3sim %s (C++20; configs in %s)\n", T3SIM_VERSION, env.configs_dir.c_str());
  return 0;
}

}  // namespace t3sim::cli
