// Strict JSON configuration: documents with "extends" (at any object level; base first, then the
// object's own keys deep-merged over it), a per-leaf origin map so every error names the file that
// set the value, `--set path=value` overrides that must hit an existing key, and ConfigNode, a view
// of one object with its JSON pointer. Annotation keys are allowed everywhere and ignored by
// binding: "source" (string or {key: citation}), "description", and keys starting with "$". A value
// may be written plainly or as {"value": V, "source": "..."}.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/did_you_mean.h"  // nearest_name, used with every ConfigNode failure

namespace t3sim {

struct ConfigDoc {
  nlohmann::json root;
  std::map<std::string, std::string> origin;  // JSON pointer -> file that set it
  std::string file;                           // the top-level file
};

// Loads `path`, resolving "extends" against the including file's folder, then each search dir.
ConfigDoc load_config(const std::filesystem::path& path,
                      const std::vector<std::filesystem::path>& search_dirs = {});
// Parses a JSON document held in memory (for tests and built-in defaults).
ConfigDoc config_from_json(const nlohmann::json& j, const std::string& file_label,
                           const std::vector<std::filesystem::path>& search_dirs = {});

// Whether a schema declares the key at a JSON pointer (e.g. system::system_declares).
using KeyDeclared = std::function<bool(const std::string& pointer)>;

// Applies "a.b.c=value" or "/a/b/c=value". The key must already exist, unless `declared` says the
// schema declares it (only the last key may be missing, in an existing object: it is added). The
// value is parsed as JSON when it is valid JSON, otherwise taken as a string. Throws ConfigError
// naming the key and a suggestion.
void apply_override(ConfigDoc& doc, std::string_view assignment,
                    const KeyDeclared& declared = nullptr);

// The existing value at `pointer` (as to_json_pointer makes it) in `doc`. A miss, or a malformed
// pointer, is a ConfigError naming the deepest existing key and the nearest name.
nlohmann::json& override_target(ConfigDoc& doc, const std::string& pointer,
                                const KeyDeclared& declared = nullptr);

// Converts "a.b.0.c" or "/a/b/0/c" to a JSON pointer string.
std::string to_json_pointer(std::string_view path);

// "source", "description", "kind" (a document's type; declared as a parameter where it is bound)
// and "$..." keys annotate a config and are never unknown keys.
bool is_annotation_key(std::string_view key);

class ConfigNode {
 public:
  ConfigNode(const ConfigDoc& doc, const nlohmann::json& value, std::string pointer)
      : doc_(&doc), value_(&value), pointer_(std::move(pointer)) {}
  static ConfigNode root(const ConfigDoc& doc) { return ConfigNode(doc, doc.root, ""); }

  const nlohmann::json& json() const { return *value_; }
  const std::string& pointer() const { return pointer_; }
  // File that set this value (or the nearest enclosing one).
  std::string file() const;
  bool has(const std::string& key) const;
  ConfigNode child(const std::string& key) const;  // throws ConfigError if missing
  ConfigNode at(size_t index) const;
  size_t size() const { return value_->size(); }
  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void fail_key(const std::string& key, const std::string& message) const;

 private:
  const ConfigDoc* doc_;
  const nlohmann::json* value_;
  std::string pointer_;
};

}  // namespace t3sim
