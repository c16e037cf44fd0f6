// `t3sim modes [MODE] [--json]`: each execution mode in one paragraph and what it bounds, from the
// mode table (models/system/mode.h) and its notes (models/system/mode_notes.h).
#include <cstdio>
#include <iostream>

#include "cli/common.h"
#include "models/system/mode.h"
#include "models/system/mode_notes.h"
#include "sim/errors.h"

namespace t3sim::cli {
namespace {

// Prints `text` wrapped at 96 columns after `indent` spaces.
void wrapped(std::string_view text, int indent) {
  size_t col = 0;
  std::string word;
  const auto flush = [&] {
    if (word.empty()) return;
    if (col > 0 && col + 1 + word.size() > 96) {
      std::printf("\n");
      col = 0;
    }
    if (col == 0) {
      std::printf("%*s%s", indent, "", word.c_str());
      col = static_cast<size_t>(indent) + word.size();
    } else {
      std::printf(" %s", word.c_str());
      col += 1 + word.size();
    }
    word.clear();
  };
  for (char c : text) {
    if (c == ' ') {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  std::printf("\n");
}

}  // namespace

int cmd_modes(const Args& args, const Env& /*env*/) {
  po::options_description desc("t3sim modes options");
  std::string only;
  desc.add_options()("mode", po::value(&only), "one mode")("json", po::bool_switch(), "print JSON");
  po::positional_options_description pos;
  pos.add("mode", 1);
  po::variables_map vm;
  if (!parse_options(args, desc, vm, &pos, "t3sim modes [MODE] [--json]")) return 0;
  if (!only.empty() && !system::parse_mode(only)) {
    throw UsageError("unknown mode '" + only + "'");
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& m : system::mode_table()) {
    if (!only.empty() && m.name != only) continue;
    const system::ModeNote* n = system::mode_note(m.name);
    const std::string_view para = n != nullptr ? n->paragraph : m.description;
    const std::string_view bound = n != nullptr ? n->bound : "";
    if (vm["json"].as<bool>()) {
      out.push_back({{"mode", m.name},
                     {"simulated", m.simulated},
                     {"summary", m.description},
                     {"explanation", para},
                     {"bound", bound}});
      continue;
    }
    std::printf("%s (%s)\n", std::string(m.name).c_str(),
                m.simulated ? "simulated" : "composed from separate runs");
    wrapped(para, 2);
    if (!bound.empty()) wrapped(std::string("Bound: ") + std::string(bound), 2);
    std::printf("\n");
  }
  if (vm["json"].as<bool>()) std::cout << out.dump(2) << "\n";
  return 0;
}

}  // namespace t3sim::cli
