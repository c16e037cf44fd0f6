// Fuzz target: the Chakra execution-trace importer (models/workload/chakra_import.h) on one rank
// file, lenient and strict, standing alone and for a group of 8. The input's bytes are the .et
// file (a record stream of varint32 counts and protobuf messages). Properties: only ConfigError,
// UsageError and UnitError escape; an imported trace is a valid t3sim trace (it passes the strict
// trace parser after to_json).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>

#include "models/workload/chakra_import.h"
#include "models/workload/trace.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace t3sim;
  using namespace t3sim::fuzz;
  namespace fs = std::filesystem;
  // One file per fuzzing process, rewritten for every input (the importer reads files), and
  // removed when the process exits normally.
  struct ScratchFile {
    fs::path path;
    ~ScratchFile() {
      std::error_code ignored;
      fs::remove(path, ignored);
    }
  };
  static const ScratchFile scratch{fs::temp_directory_path() /
                                   ("t3sim_fuzz_chakra_" + std::to_string(::getpid()) + ".0.et")};
  const fs::path& file = scratch.path;
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  for (const bool strict : {false, true}) {
    for (const std::optional<int> group : {std::optional<int>{}, std::optional<int>{8}}) {
      std::optional<workload::ChakraImport> imported;
      expect_input_errors_only("import_chakra", [&] {
        imported = workload::import_chakra({file}, {.strict = strict, .group = group});
      });
      if (!imported) continue;
      try {
        workload::parse_trace(workload::to_json(imported->trace), "imported.json");
      } catch (const std::exception& e) {
        fuzz_fail(std::string("import_chakra produced a trace parse_trace rejects: ") + e.what());
      }
    }
  }
  return 0;
}
