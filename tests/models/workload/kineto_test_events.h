// Test support: the Kineto events the import tests build their profiles from (a kernel on CUDA
// stream 7 linked to its launching cpu_op by "External id", and that cpu_op with extra args).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace t3sim::workload::testing {

inline nlohmann::json kineto_kernel(const std::string& name, double ts, double dur,
                                    int external_id) {
  return {{"ph", "X"},    {"cat", "kernel"},
          {"name", name}, {"pid", 0},
          {"tid", 7},     {"ts", ts},
          {"dur", dur},   {"args", {{"External id", external_id}, {"stream", 7}}}};
}

inline nlohmann::json kineto_cpu_op(const std::string& name, int external_id,
                                    nlohmann::json extra) {
  nlohmann::json args = {{"External id", external_id}};
  args.update(extra);
  return {{"ph", "X"}, {"cat", "cpu_op"}, {"name", name}, {"pid", 1},
          {"tid", 1},  {"ts", 0.0},       {"dur", 1.0},   {"args", args}};
}

}  // namespace t3sim::workload::testing
