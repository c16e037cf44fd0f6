// Validators for the document kinds that drive runs (experiment, sweep, run): each checks every
// key, path and value before anything runs and throws ConfigError naming file and JSON pointer.
#pragma once

#include <filesystem>

#include "cli/commands.h"
#include "sim/config.h"

namespace t3sim::cli {

void check_file(const Env& env, const std::filesystem::path& path);
// Builds the system in a scratch simulator and binds its collectives and T3 settings.
void validate_experiment(const Env& env, const ConfigDoc& doc);
void validate_sweep(const Env& env, const ConfigDoc& doc);
void validate_run(const Env& env, const ConfigDoc& doc);
// `t3sim describe run`: the run document's keys (text) or its JSON Schema (--json).
void describe_run(bool json);

}  // namespace t3sim::cli
