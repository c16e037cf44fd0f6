#include "sim/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "sim/errors.h"

namespace t3sim {

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw ModelError(path.string(), "cannot create its folder: " + ec.message());
  const std::filesystem::path tmp =
      path.string() + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    throw ModelError(path.string(), std::string("cannot write: ") + std::strerror(errno));
  }
  bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size() &&
            std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    std::filesystem::remove(tmp, ec);
    throw ModelError(path.string(), "write failed (disk full?)");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    throw ModelError(path.string(), "cannot replace the file: " + why);
  }
}

}  // namespace t3sim
