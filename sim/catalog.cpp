#include "sim/catalog.h"

#include <algorithm>

#include "sim/did_you_mean.h"
#include "sim/errors.h"

namespace t3sim {
namespace {

bool is_plain_name(std::string_view s) {
  return !s.empty() && s.find('/') == std::string_view::npos &&
         s.find('\\') == std::string_view::npos && s != "." && s != "..";
}

bool is_file(const std::filesystem::path& p) {
  std::error_code ec;  // a name too long for the OS is "not found", not an exception
  return std::filesystem::is_regular_file(p, ec);
}

}  // namespace

Catalog::Catalog(std::string kind, std::filesystem::path folder, std::string label)
    : kind_(std::move(kind)), folder_(std::move(folder)), label_(std::move(label)) {}

std::vector<std::string> Catalog::names() const {
  std::vector<std::string> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(folder_, ec)) return out;
  for (const auto& e : std::filesystem::directory_iterator(folder_, ec)) {
    if (e.path().extension() == ".json" && is_file(e.path())) {
      out.push_back(e.path().stem().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::filesystem::path Catalog::resolve(std::string_view name_or_path) const {
  const std::filesystem::path as_path(name_or_path);
  if (!name_or_path.empty() && is_file(as_path)) return as_path;
  if (is_plain_name(name_or_path)) {
    const std::filesystem::path entry = folder_ / (std::string(name_or_path) + ".json");
    if (is_file(entry)) return entry;
  }
  const std::vector<std::string> present = names();
  const std::string available =
      present.empty() ? "(none: " + folder_.string() + " has no .json files)" : join(present, ", ");
  throw ConfigError(label_, "",
                    "unknown " + kind_ + " '" + std::string(name_or_path) + "'" +
                        did_you_mean(name_or_path, present) + "; available: " + available +
                        "; give a name from that list or the path of a file");
}

}  // namespace t3sim
