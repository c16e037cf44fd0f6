#include "models/hbm/policy_table.h"

#include "models/hbm/policies/fr_fcfs.h"
#include "models/hbm/policies/mca.h"

namespace t3sim::hbm {

const std::vector<PolicySpec>& policy_table() {
  static const std::vector<PolicySpec> kTable = {
      fr_fcfs_policy_spec(),
      mca_policy_spec(),
  };
  return kTable;
}

const PolicySpec* find_policy(std::string_view name) {
  for (const PolicySpec& p : policy_table()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const PolicySpec& p : policy_table()) names.emplace_back(p.name);
  return names;
}

nlohmann::ordered_json describe_policies() {
  Params all;
  for (const PolicySpec& p : policy_table()) p.declare(all);
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const PolicySpec& p : policy_table()) {
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (std::string_view n : p.params) {
      const ParamSpec* s = all.find(std::string(n));
      params[std::string(n)] = s != nullptr ? s->description : std::string("?");
    }
    out.push_back({{"name", p.name}, {"description", p.description}, {"params", params}});
  }
  return out;
}

}  // namespace t3sim::hbm
