// The cross-checks of an experiment document beyond its schema, run by read_experiment (and so by
// `t3sim check`): every (model, TP) of a point set must slice (the TP divides the model's widths),
// and the paper's numbers ("paper") must name only figures, modes and quantities the report
// compares, each a finite number, so a typo cannot drop a target from report.md in silence.
// Contract: each failure is a ConfigError at the offending value's pointer, naming the fix.
#pragma once

#include <string>

#include "sim/config.h"
#include "studies/env.h"
#include "studies/experiment.h"

namespace t3sim::studies {

// `node` is the point set's object ("fig16", "large_models").
void check_point_tps(const Env& env, const PointSet& ps, const ConfigNode& node);
// One (model, TP) pair, e.g. fig17's; errors point at `model_at` or `tp_at`.
void check_model_tp(const Env& env, const std::string& model, int tp, const ConfigNode& model_at,
                    const ConfigNode& tp_at);
// `paper` is the experiment's "paper" object; `e` has its point sets and Fig. 6 splits read.
void check_paper(const ConfigNode& paper, const Experiment& e);

}  // namespace t3sim::studies
