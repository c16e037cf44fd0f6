// `t3sim describe` for systems: the shipped list, and what one system config resolves to.
// Contract: describe_system() builds the system as `t3sim check` does (no run) and prints its
// bound values; bad configs throw ConfigError like every other command.
#pragma once

#include <string>
#include <vector>

#include "cli/commands.h"

namespace t3sim::cli {

void list_systems(const Env& env);
// A name under configs/systems/ or an existing .json path.
bool is_system(const Env& env, const std::string& name);
void describe_system(const Env& env, const std::string& name, const std::vector<std::string>& sets,
                     bool json);

}  // namespace t3sim::cli
