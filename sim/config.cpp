#include "sim/config.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "sim/errors.h"
#include "sim/json_file.h"
#include "sim/json_pointer.h"

namespace t3sim {
namespace {

constexpr int kMaxExtendsDepth = 16;
// Files one document may read through "extends" in all. A file that extends the same base twice
// at every level would otherwise read 2^16 files within the depth limit (fan-out, not depth).
constexpr int kMaxExtendsReads = 256;
// Values one config may hold outside annotations: each keeps an origin entry (~150 B) beside the
// parsed document, which sim/json_file.h bounds already.
constexpr size_t kMaxConfigValues = size_t{1} << 20;

// A JSON-pointer reference token unescaped ("~0" -> '~', "~1" -> '/'); any other '~' is an error.
std::string unescape_token(const std::string& token, const std::string& parent) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '~') {
      out += token[i];
    } else if (i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[++i] == '0' ? '~' : '/';
    } else {
      throw ConfigError("--set", parent + "/" + token,
                        "'~' in a /-path must be written ~0 ('/' as ~1); fix the path");
    }
  }
  return out;
}

// The array index spelled by `key` (decimal digits only), or nullopt.
std::optional<size_t> array_index(const std::string& key) {
  size_t index = 0;
  const char* end = key.data() + key.size();
  const auto [ptr, ec] = std::from_chars(key.data(), end, index);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return index;
}

class Resolver {
 public:
  Resolver(ConfigDoc& doc, std::vector<std::filesystem::path> dirs)
      : doc_(doc), dirs_(std::move(dirs)) {}

  // Resolves "extends" inside `value` (which came from `file`), recording leaf origins.
  nlohmann::json resolve(const nlohmann::json& value, const std::filesystem::path& file,
                         const std::string& pointer, int depth) {
    if (depth > kMaxExtendsDepth) {
      throw ConfigError(file.string(), pointer,
                        "\"extends\" nested deeper than 16 levels (cycle?)");
    }
    if (value.is_array()) {
      nlohmann::json out = nlohmann::json::array();
      for (size_t i = 0; i < value.size(); ++i) {
        out.push_back(resolve(value[i], file, pointer + "/" + std::to_string(i), depth));
      }
      note(pointer, file);
      return out;
    }
    if (!value.is_object()) {
      note(pointer, file);
      return value;
    }
    nlohmann::json out = nlohmann::json::object();
    if (auto it = value.find("extends"); it != value.end()) {
      std::vector<std::string> bases;
      if (it->is_string()) {
        bases.push_back(it->get<std::string>());
      } else if (it->is_array() &&
                 std::all_of(it->begin(), it->end(), [](const auto& b) { return b.is_string(); })) {
        for (const auto& b : *it) bases.push_back(b.get<std::string>());
      } else {
        throw ConfigError(file.string(), pointer + "/extends",
                          "\"extends\" must be a file name or a list of file names");
      }
      for (const auto& b : bases) {
        if (++reads_ > kMaxExtendsReads) {
          throw ConfigError(file.string(), pointer + "/extends",
                            "\"extends\" reads more than " + std::to_string(kMaxExtendsReads) +
                                " files for this document (the same presets again and again?); "
                                "extend each preset once");
        }
        const auto base_path = find(b, file, pointer);
        const nlohmann::json base = read_json_file(base_path);
        merge(out, resolve(base, base_path, pointer, depth + 1));
      }
    }
    note(pointer, file);
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it.key() == "extends") continue;
      const std::string p = pointer + "/" + pointer_token(it.key());
      // Annotations are never bound: taken as written (no "extends", no origins to record).
      nlohmann::json v =
          is_annotation_key(it.key()) ? it.value() : resolve(it.value(), file, p, depth);
      if (out.contains(it.key()) && out[it.key()].is_object() && v.is_object()) {
        merge(out[it.key()], v);
      } else {
        out[it.key()] = std::move(v);
      }
    }
    return out;
  }

 private:
  // Records that the value at `pointer` came from `file`; the map is bounded (kMaxConfigValues).
  void note(const std::string& pointer, const std::filesystem::path& file) {
    doc_.origin[pointer] = file.string();
    if (doc_.origin.size() > kMaxConfigValues) {
      throw ConfigError(file.string(), pointer,
                        "more than " + std::to_string(kMaxConfigValues) +
                            " values in this config (t3sim configs have hundreds; is it the right "
                            "file?)");
    }
  }

  static void merge(nlohmann::json& into, const nlohmann::json& from) {
    for (auto it = from.begin(); it != from.end(); ++it) {
      if (into.contains(it.key()) && into[it.key()].is_object() && it.value().is_object()) {
        merge(into[it.key()], it.value());
      } else {
        into[it.key()] = it.value();
      }
    }
  }

  std::filesystem::path find(const std::string& name, const std::filesystem::path& from,
                             const std::string& pointer) const {
    std::vector<std::filesystem::path> tried;
    tried.push_back(from.parent_path() / name);
    for (const auto& d : dirs_) tried.push_back(d / name);
    for (const auto& t : tried) {
      std::error_code ec;  // a name too long for the OS is not found, not an exception
      if (std::filesystem::is_regular_file(t, ec)) return t;
    }
    throw ConfigError(from.string(), pointer + "/extends",
                      "cannot find '" + name + "' (looked beside the file and in " +
                          std::to_string(dirs_.size()) + " config folder(s)); fix the name");
  }

  ConfigDoc& doc_;
  std::vector<std::filesystem::path> dirs_;
  int reads_ = 0;  // "extends" files read so far
};

}  // namespace

ConfigDoc load_config(const std::filesystem::path& path,
                      const std::vector<std::filesystem::path>& search_dirs) {
  ConfigDoc doc;
  doc.file = path.string();
  const nlohmann::json raw = read_json_file(path);
  if (!raw.is_object()) throw ConfigError(path.string(), "", "top level must be a JSON object");
  Resolver r(doc, search_dirs);
  doc.root = r.resolve(raw, path, "", 0);
  return doc;
}

ConfigDoc config_from_json(const nlohmann::json& j, const std::string& file_label,
                           const std::vector<std::filesystem::path>& search_dirs) {
  ConfigDoc doc;
  doc.file = file_label;
  Resolver r(doc, search_dirs);
  doc.root = r.resolve(j, file_label, "", 0);
  return doc;
}

std::string to_json_pointer(std::string_view path) {
  if (!path.empty() && path.front() == '/') return std::string(path);
  std::string out;
  std::string token;
  for (char c : path) {
    if (c == '.') {
      out += '/';  // appended separately: `"/" + str` trips GCC 12's -Wrestrict false positive
      out += pointer_token(token);
      token.clear();
    } else {
      token += c;
    }
  }
  out += '/';
  out += pointer_token(token);
  return out;
}

bool is_annotation_key(std::string_view key) {
  return key == "source" || key == "description" || key == "kind" ||
         (!key.empty() && key.front() == '$');
}

nlohmann::json& override_target(ConfigDoc& doc, const std::string& pointer,
                                const KeyDeclared& declared) {
  // Walk the pointer so a miss names the deepest existing object and the nearest key.
  nlohmann::json* cur = &doc.root;
  std::string walked;
  for (size_t begin = 1; begin <= pointer.size();) {
    const size_t end = std::min(pointer.find('/', begin), pointer.size());
    const std::string token = pointer.substr(begin, end - begin);
    const std::string key = unescape_token(token, walked);
    const std::optional<size_t> index = cur->is_array() ? array_index(key) : std::nullopt;
    if (cur->is_object() && cur->contains(key)) {
      cur = &(*cur)[key];
    } else if (index && *index < cur->size()) {
      cur = &(*cur)[*index];
    } else if (declared && end == pointer.size() && cur->is_object() && !key.empty() &&
               declared(walked + "/" + token)) {
      cur = &(*cur)[key];  // declared by the schema, left out by the file: added
    } else {
      std::vector<std::string> names;
      if (cur->is_object()) {
        for (auto it = cur->begin(); it != cur->end(); ++it) names.push_back(it.key());
      }
      const std::string hint = nearest_name(key, names);
      throw ConfigError(doc.file, walked + "/" + token,
                        "--set: no such key '" + key + "'" +
                            (!hint.empty() ? " (did you mean '" + hint + "'?)"
                             : declared    ? std::string(" (neither in the file nor a declared "
                                                            "parameter: `t3sim describe` lists them)")
                                           : std::string(" (overrides must hit an existing key)")));
    }
    walked += "/" + token;
    begin = end + 1;
  }
  return *cur;
}

void apply_override(ConfigDoc& doc, std::string_view assignment, const KeyDeclared& declared) {
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw ConfigError("--set", "", "expected PATH=VALUE, got '" + std::string(assignment) + "'");
  }
  const std::string pointer = to_json_pointer(assignment.substr(0, eq));
  const std::string text(assignment.substr(eq + 1));
  nlohmann::json value = try_parse_json(text, "--set", pointer).value_or(nlohmann::json(text));
  if (value.is_string() && !is_valid_utf8(value.get_ref<const std::string&>())) {
    throw ConfigError("--set", pointer,
                      "the value is not valid UTF-8 text; retype it (check the shell's locale)");
  }
  nlohmann::json* cur = &override_target(doc, pointer, declared);
  std::string target = pointer;
  if (cur->is_object() && cur->contains("value") && !value.is_object()) {
    cur = &(*cur)["value"];
    target += "/value";  // errors about the new value must name --set, not the wrapper's file
  }
  *cur = value;
  doc.origin[pointer] = "--set";
  doc.origin[target] = "--set";
}

std::string ConfigNode::file() const {
  std::string p = pointer_;
  while (true) {
    if (auto it = doc_->origin.find(p); it != doc_->origin.end()) return it->second;
    if (p.empty()) return doc_->file;
    p = p.substr(0, p.rfind('/'));
  }
}

bool ConfigNode::has(const std::string& key) const {
  return value_->is_object() && value_->contains(key);
}

ConfigNode ConfigNode::child(const std::string& key) const {
  if (!value_->is_object()) fail("expected an object");
  auto it = value_->find(key);
  if (it == value_->end()) fail("missing required key '" + key + "'");
  return ConfigNode(*doc_, *it, pointer_ + "/" + pointer_token(key));
}

ConfigNode ConfigNode::at(size_t index) const {
  if (!value_->is_array() || index >= value_->size()) fail("expected an array element");
  return ConfigNode(*doc_, (*value_)[index], pointer_ + "/" + std::to_string(index));
}

void ConfigNode::fail(const std::string& message) const {
  throw ConfigError(file(), pointer_, message);
}

void ConfigNode::fail_key(const std::string& key, const std::string& message) const {
  const std::string p = pointer_ + "/" + pointer_token(key);
  ConfigNode n(*doc_, *value_, p);
  throw ConfigError(n.file(), p, message);
}

}  // namespace t3sim
