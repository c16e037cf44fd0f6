// Catalog: the name-or-path lookup for the configuration files a user names on the command line
// (systems, models, experiments, sweeps). "dgx-a100" means <folder>/dgx-a100.json; anything that
// names an existing file is taken as a path. Names are the stems of the folder's *.json files,
// listed in sorted order, so messages are deterministic. A miss is one ConfigError naming the
// input, the nearest name (sim/did_you_mean.h) and every name present. Contract: a Catalog holds
// only its folder and labels; each call reads the folder afresh.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace t3sim {

class Catalog {
 public:
  // `kind` names an entry in messages ("system"); `folder` holds the entries
  // (configs/systems); `label` is the input that named it ("--system", or the file citing it).
  Catalog(std::string kind, std::filesystem::path folder, std::string label);

  // The file `name_or_path` means: itself when it is an existing regular file, else
  // <folder>/<name>.json when `name_or_path` is a plain name (no '/' or '\') of an entry.
  // Anything else throws ConfigError: "unknown <kind> 'x' (did you mean 'y'?); available: a, b".
  std::filesystem::path resolve(std::string_view name_or_path) const;

  // The entry names present (stems of <folder>/*.json), sorted; empty when the folder is missing.
  std::vector<std::string> names() const;

  const std::filesystem::path& folder() const { return folder_; }

 private:
  std::string kind_;
  std::filesystem::path folder_;
  std::string label_;
};

}  // namespace t3sim
