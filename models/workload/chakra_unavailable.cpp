// The Chakra import of a build without protobuf (chakra_import.h): it says so in one line.
#include "models/workload/chakra_import.h"
#include "sim/errors.h"

namespace t3sim::workload {
namespace {

[[noreturn]] void unavailable() {
  throw UsageError(
      "import-chakra: this t3sim was built without protobuf; install libprotobuf-dev and "
      "protobuf-compiler (Debian) and rebuild");
}

}  // namespace

bool chakra_import_available() { return false; }

std::vector<std::filesystem::path> chakra_rank_files(const std::vector<std::string>&) {
  unavailable();
}

ChakraImport import_chakra(const std::vector<std::filesystem::path>&, const ChakraImportOptions&) {
  unavailable();
}

}  // namespace t3sim::workload
