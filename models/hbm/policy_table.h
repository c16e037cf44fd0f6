// The HBM arbitration-policy table: one entry per policy (name, description, the parameters it
// reads, how it declares and binds them, and a per-channel factory). Each policy lives in its own
// file under models/hbm/policies/; adding one = that file + one line in policy_table.cpp.
// Invariants: names are unique; every policy's parameters are declared in hbm_params(), so a
// config binds the settings of all policies (an Hbm can switch policy at run time).
// Contract: PolicySpec::bind() reads only parameters declared by some table entry.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/hbm/arbitration.h"
#include "sim/params.h"
#include "sim/units.h"

namespace t3sim::hbm {

// What a policy instance knows about its channel.
struct ChannelShape {
  Bytes read_capacity;
  Bytes write_capacity;
  Bandwidth bus;  // data bus, peak x efficiency / channels
};

using PolicyMaker = std::function<std::unique_ptr<ArbitrationPolicy>(const ChannelShape&)>;

struct PolicySpec {
  std::string_view name;
  std::string_view description;
  std::vector<std::string_view> params;  // every parameter it reads (declared by it or another)
  void (*declare)(Params& p);            // declares the parameters this policy owns
  PolicyMaker (*bind)(const BoundParams& b);
};

const std::vector<PolicySpec>& policy_table();
// nullptr for an unknown name.
const PolicySpec* find_policy(std::string_view name);
// "fr-fcfs | mca" (for error messages and one_of()).
std::vector<std::string> policy_names();
// [{name, description, params: {name: parameter description}}] for `t3sim describe`.
nlohmann::ordered_json describe_policies();

}  // namespace t3sim::hbm
