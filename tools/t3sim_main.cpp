// t3sim: command-line entry point. Dispatches to the subcommands in cli/ and is the only place
// that turns exceptions into messages and exit codes: 0 ok, 2 usage/config error, 1 internal error.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options/errors.hpp>

#include "cli/commands.h"
#include "cli/huge_page_heap.h"
#include "sim/errors.h"
#include "sim/units_parse.h"

namespace {

struct Entry {
  std::string_view name;
  int (*fn)(const t3sim::cli::Args&, const t3sim::cli::Env&);
  std::string_view help;
};

constexpr Entry kCommands[] = {
    {"reproduce", t3sim::cli::cmd_reproduce, "reproduce the T3 paper (the main job)"},
    {"sublayer", t3sim::cli::cmd_sublayer, "one TP sublayer under an execution mode"},
    {"sweep", t3sim::cli::cmd_sweep, "run a sweep spec (threads or MPI)"},
    {"nccl-tests", t3sim::cli::cmd_nccl_tests, "nccl-tests-style collective sweep"},
    {"gemm", t3sim::cli::cmd_gemm, "one GEMM on one GPU of a system"},
    {"membw", t3sim::cli::cmd_membw, "HBM bandwidth microbenchmark"},
    {"contention", t3sim::cli::cmd_contention,
     "GEMM against a reduction kernel on k SMs (contention_bench's twin)"},
    {"p2p", t3sim::cli::cmd_p2p, "point-to-point transfer between two GPUs"},
    {"trace", t3sim::cli::cmd_trace, "generate or import operation traces"},
    {"replay", t3sim::cli::cmd_replay, "replay a trace on a system"},
    {"validate", t3sim::cli::cmd_validate, "compare with stored measurements"},
    {"calibrate", t3sim::cli::cmd_calibrate, "fit preset parameters to measurements"},
    {"run", t3sim::cli::cmd_run, "build a system config, run it, dump stats"},
    {"check", t3sim::cli::cmd_check, "validate config files"},
    {"describe", t3sim::cli::cmd_describe,
     "component types, systems (what a config resolves to), the run format"},
    {"modes", t3sim::cli::cmd_modes, "what each execution mode runs and what it bounds"},
    {"version", t3sim::cli::cmd_version, "print the version"},
};

void usage(std::FILE* out) {
  std::fprintf(out, "usage: t3sim <command> [options]   (t3sim <command> --help for details)\n\n");
  for (const auto& c : kCommands) {
    std::fprintf(out, "  %-11.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                 static_cast<int>(c.help.size()), c.help.data());
  }
}

t3sim::cli::Env make_env() {
  t3sim::cli::Env env;
  env.source_dir = T3SIM_SOURCE_DIR;
  const char* configs = std::getenv("T3SIM_CONFIGS");
  env.configs_dir =
      configs != nullptr ? std::filesystem::path(configs) : env.source_dir / "configs";
  env.stderr_is_tty = ::isatty(2) != 0;
  return env;
}

}  // namespace

int main(int argc, char** argv) {
  t3sim::cli::use_huge_page_heap();
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage(stdout);
    return 0;
  }
  const t3sim::cli::Args args(argv + 2, argv + argc);
  for (const auto& c : kCommands) {
    if (c.name != name) continue;
    try {
      return c.fn(args, make_env());
    } catch (const t3sim::ConfigError& e) {
      std::fprintf(stderr, "t3sim %s: %s\n", argv[1], e.what());
      return 2;
    } catch (const t3sim::UsageError& e) {
      std::fprintf(stderr, "t3sim %s: %s (see t3sim %s --help)\n", argv[1], e.what(), argv[1]);
      return 2;
    } catch (const t3sim::UnitError& e) {
      std::fprintf(stderr, "t3sim %s: %s\n", argv[1], e.what());
      return 2;
    } catch (const boost::program_options::error& e) {
      std::fprintf(stderr, "t3sim %s: %s (see t3sim %s --help)\n", argv[1], e.what(), argv[1]);
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "t3sim %s: internal error: %s\n", argv[1], e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "t3sim: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
