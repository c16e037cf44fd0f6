// Where a study finds its inputs: the configs tree (presets/, systems/, models/, experiments/) and
// the repository (tools/ scripts, validation data). Studies and validation take this instead of
// reading the process environment.
// Contract: both paths are used as given; relative paths resolve against the working directory.
#pragma once

#include <filesystem>

namespace t3sim::studies {

struct Env {
  std::filesystem::path configs_dir;  // where presets/, systems/, models/ live
  std::filesystem::path source_dir;   // the repository (tools/ scripts, validation data)
};

}  // namespace t3sim::studies
