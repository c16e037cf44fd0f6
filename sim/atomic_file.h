// Atomic result files: content is written to "<path>.tmp.<pid>" and renamed over <path>, so an
// interrupted run leaves either the old file or the complete new one, never a torn file.
// Contract: write_file_atomic throws ModelError (with the path and errno text) if it cannot write.
#pragma once

#include <filesystem>
#include <string_view>

namespace t3sim {

void write_file_atomic(const std::filesystem::path& path, std::string_view content);

}  // namespace t3sim
