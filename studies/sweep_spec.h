// Sweep specs (kind "sweep", configs/sweeps/*.json): a base point (system, model, sublayer, mode,
// tokens, overrides) plus axes. An axis varies one path over a list of values: the workload paths
// "system", "model", "tp", "sublayer", "mode", "tokens", "ar_cus", "chunks" ("tp" on a multi-node
// system: its first tp / gpus_per_node nodes), or any system config path (of the base system) in
// `--set` syntax ("hbm.bandwidth", "fabric.link.bandwidth", "nmc", ...). Axes combine as a
// cartesian product in spec order (last axis fastest); a {"zip": [...]} axis varies its members
// together. Every path and value is checked before anything runs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/system/mode.h"
#include "models/system/sublayer.h"
#include "sim/config.h"
#include "studies/env.h"

namespace t3sim::studies {

struct SweepAxis {
  std::vector<std::string> paths;                   // one, or several for a zip
  std::vector<std::vector<nlohmann::json>> values;  // values[k][path]
};

struct SweepSpec {
  std::string name;
  std::string system;
  std::string model;
  std::string sublayer;
  std::string mode;
  int64_t tokens = 0;
  uint32_t ar_cus = 16;
  uint32_t chunks = 4;
  std::vector<std::string> sets;
  std::vector<SweepAxis> axes;
  std::vector<std::string> columns;  // axis paths in order
  // The product of the axis lengths; SIZE_MAX when it does not fit (read_sweep rejects a spec
  // of more than kMaxSweepPoints, so a spec it returns never saturates).
  size_t points() const;
};

inline constexpr size_t kMaxSweepPoints = 10'000'000;

struct SweepPoint {
  std::vector<std::string> labels;  // one per column, as written to the output
  std::string system, model, sublayer, mode;
  int tp = 0;
  int64_t tokens = 0;
  uint32_t ar_cus = 16, chunks = 4;
  std::vector<std::string> sets;
};

SweepSpec read_sweep(const Env& env, const ConfigDoc& doc);
// A digest (16 hex digits, FNV-1a 64) of what the sweep's rows depend on beyond their own axis
// values: the spec's base, and the resolved documents of every system it names, in its base or
// axes (presets merged), and every model file. `--resume` keeps rows only when the digest they were
// written under is this one (and then each row only if its axis values are the spec's).
std::string sweep_fingerprint(const Env& env, const SweepSpec& s);
SweepPoint sweep_point(const SweepSpec& s, size_t index);
// Runs one point: loads the system with its overrides and runs the sublayer.
system::SublayerResult run_sweep_point(const Env& env, const SweepPoint& p);

}  // namespace t3sim::studies
