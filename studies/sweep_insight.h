// What a finished sweep says about its own axes: an axis whose values leave every result column
// unchanged (total, GEMM, exposed RS, AG time, DRAM and link bytes), for every combination of the
// other axes, measured nothing. The warning names the axis and, where the models know it, the limit
// that binds instead (a fabric axis that builds the same fabric for every value: e.g. GPU links
// capped by the NVSwitch port). Contract: pure functions of the spec and the result rows.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "studies/env.h"
#include "studies/sweep_spec.h"

namespace t3sim::studies {

struct InertAxis {
  size_t axis = 0;      // index into spec.axes
  std::string name;     // its path (zip members joined with '+')
  std::string binding;  // what caps it, "" if the models cannot tell
};

// Result columns per point index, in any order of keys (parsed from the output file).
using SweepResults = std::map<size_t, std::vector<std::string>>;

// The result columns (after the axis columns) of every row of a sweep output (.csv or .jsonl).
SweepResults read_sweep_results(const std::string& text, const SweepSpec& spec, bool jsonl);

// Axes with more than one value whose values never change a result (points missing from
// `results` are skipped).
std::vector<InertAxis> inert_axes(const SweepSpec& spec, const SweepResults& results);

// For a fabric axis: "" unless every value builds a fabric with the same link bandwidths, else a
// sentence naming the limit that binds.
std::string binding_limit(const Env& env, const SweepSpec& spec, size_t axis);

// One line per inert axis: "warning: axis 'X' changes no result (...)".
std::vector<std::string> inert_axis_warnings(const Env& env, const SweepSpec& spec,
                                             const SweepResults& results);

}  // namespace t3sim::studies
