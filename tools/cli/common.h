// Helpers shared by the CLI subcommands: option parsing with Boost.Program_options (unknown
// options and stray arguments are usage errors); system loading and sublayer resolution come from
// the studies library (tools/studies/inputs.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/commands.h"
#include "tools/studies/inputs.h"

namespace t3sim::cli {

namespace po = boost::program_options;

// Parses `args` against `desc` (+ positional), prints help and returns false on --help.
bool parse_options(const Args& args, const po::options_description& desc, po::variables_map& vm,
                   const po::positional_options_description* positional = nullptr,
                   const char* usage = nullptr);

// The studies' input helpers, used by most commands.
using studies::ar_pass;
using studies::choose_sublayer;
using studies::load_system;
using studies::SublayerChoice;

}  // namespace t3sim::cli
