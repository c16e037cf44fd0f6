#include "cli/common.h"

#include <iostream>

#include "models/system/system.h"
#include "sim/errors.h"

namespace t3sim::cli {

bool parse_options(const Args& args, const po::options_description& desc, po::variables_map& vm,
                   const po::positional_options_description* positional, const char* usage) {
  po::options_description all(desc);
  all.add_options()("help,h", "show this help");
  po::command_line_parser parser(args);
  parser.options(all);
  if (positional != nullptr) parser.positional(*positional);
  po::store(parser.run(), vm);
  if (vm.count("help") != 0) {
    if (usage != nullptr) std::cout << "usage: " << usage << "\n\n";
    std::cout << all << "\n";
    return false;
  }
  po::notify(vm);
  return true;
}

}  // namespace t3sim::cli
