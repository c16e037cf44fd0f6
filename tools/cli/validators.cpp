// The experiment and sweep validators behind `t3sim check`: each reads the document strictly
// through the studies library, which throws ConfigError naming file and JSON pointer.
#include "cli/validators.h"

#include "studies/experiment.h"
#include "studies/sweep_spec.h"

namespace t3sim::cli {

void validate_experiment(const Env& env, const ConfigDoc& doc) {
  studies::read_experiment(env, doc);
}

void validate_sweep(const Env& env, const ConfigDoc& doc) { studies::read_sweep(env, doc); }

}  // namespace t3sim::cli
