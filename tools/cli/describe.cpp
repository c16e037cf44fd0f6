// `t3sim describe [TYPE]`: lists component types, or one type's parameters (type, unit, default,
// range, description), ports and stats, like sst-info. Types come from the explicit registry;
// `describe modes` and `describe policies` print the execution-mode and HBM-policy tables;
// `describe systems` lists the shipped systems, `describe SYSTEM` shows what one resolves to and
// `describe run` the run document's schema.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/common.h"
#include "cli/describe_system.h"
#include "cli/registry_setup.h"
#include "cli/validators.h"
#include "models/hbm/policy_table.h"
#include "models/system/mode.h"

namespace t3sim::cli {

int cmd_describe(const Args& args, const Env& env) {
  po::options_description desc("t3sim describe options");
  std::string type;
  std::vector<std::string> sets;
  desc.add_options()("type", po::value(&type),
                     "component type, `systems`, a system name or path, `run`, `modes`, "
                     "`policies`")("json", po::bool_switch(), "print JSON")(
      "set", po::value(&sets)->composing(), "a system: override a config value: path=value");
  po::positional_options_description pos;
  pos.add("type", 1);
  po::variables_map vm;
  if (!parse_options(args, desc, vm, &pos, "t3sim describe [TYPE|SYSTEM|systems|run] [--json]")) {
    return 0;
  }
  const Registry reg = make_registry();
  const bool json = vm["json"].as<bool>();
  if (type.empty()) {
    for (const auto& t : reg.types()) std::printf("%s\n", t.c_str());
    std::printf("modes\npolicies\nsystems\nrun\n");
    return 0;
  }
  if (type == "systems") {
    list_systems(env);
    return 0;
  }
  if (type == "run") {
    describe_run(json);
    return 0;
  }
  const auto types = reg.types();
  if (std::find(types.begin(), types.end(), type) == types.end() && is_system(env, type)) {
    describe_system(env, type, sets, json);
    return 0;
  }
  if (type == "modes") {
    int width = 0;
    for (const auto& m : system::mode_table())
      width = std::max(width, static_cast<int>(m.name.size()));
    for (const auto& m : system::mode_table()) {
      std::printf("  %-*s %s\n", width, std::string(m.name).c_str(),
                  std::string(m.description).c_str());
    }
    return 0;
  }
  if (type == "policies") {
    const auto table = hbm::describe_policies();
    if (vm["json"].as<bool>()) {
      std::cout << table.dump(2) << "\n";
      return 0;
    }
    for (const auto& p : table) {
      std::printf("%s: %s\n", p["name"].get<std::string>().c_str(),
                  p["description"].get<std::string>().c_str());
      for (const auto& [k, v] : p["params"].items()) {
        std::printf("  %-22s %s\n", k.c_str(), v.get<std::string>().c_str());
      }
    }
    return 0;
  }
  const auto d = reg.describe(type);
  if (vm["json"].as<bool>()) {
    std::cout << d.dump(2) << "\n";
    return 0;
  }
  std::printf("%s: %s\n\nparameters:\n", type.c_str(), d["description"].get<std::string>().c_str());
  for (const auto& p : d["params"]) {
    std::string def = p.contains("default") ? p["default"].dump() : "(required)";
    std::printf("  %-22s %-28s %-12s %s\n", p["name"].get<std::string>().c_str(),
                p["type"].get<std::string>().c_str(), def.c_str(),
                p["description"].get<std::string>().c_str());
  }
  if (d.contains("ports")) {
    std::printf("\nports:\n");
    for (const auto& p : d["ports"]) std::printf("  %s\n", p.get<std::string>().c_str());
  }
  if (d.contains("stats")) {
    std::printf("\nstats:\n");
    for (const auto& s : d["stats"]) {
      std::printf("  %-28s %-10s %s\n", s["name"].get<std::string>().c_str(),
                  s["unit"].get<std::string>().c_str(), s["desc"].get<std::string>().c_str());
    }
  }
  return 0;
}

}  // namespace t3sim::cli
