// Atomic result files: content is written to "<target>.tmp.<pid>" beside the target and renamed
// over it, so an interrupted run leaves either the old file or the complete new one, never a torn
// file. The target is the path itself or, when the path is a symbolic link, the file at the end of
// the link chain (the link is kept and now shows the new content). Only regular files are
// replaced: a directory, device (/dev/null), FIFO or socket there is refused, never destroyed.
// New files get mode 0666 less the umask (0644 by default), like any file the shell creates.
// Contract: every failure is a ConfigError naming the path (and the resolved target), with the
// system's reason and the fix; no temporary file is left behind.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace t3sim {

// The regular file that write_file_atomic(path, ...) would replace (it may not exist yet).
// Throws ConfigError when `path` (or the end of its link chain) is not a regular file.
std::filesystem::path output_target(const std::filesystem::path& path);

void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// As above, with the content made piece by piece, so a large output is never held whole: `next`
// appends the next piece to its (cleared) argument and returns false after the last one. An
// exception from `next` removes the temporary file and goes on; the old file stays.
void write_file_atomic(const std::filesystem::path& path,
                       const std::function<bool(std::string&)>& next);

}  // namespace t3sim
