// Strict reading of the JSON files this library consumes (model configs, traces, Kineto traces).
// Every failure is a ConfigError naming the file, the JSON pointer and the fix; an unknown key gets
// "did you mean" from the nearest allowed key by edit distance. Integers must be JSON integers (no
// 1024.0) within the stated range; numbers must be finite. No state beyond the value being read.
// Contract: ObjectReader holds a pointer to the JSON value; the value must outlive the reader.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace t3sim::workload {

std::size_t edit_distance(std::string_view a, std::string_view b);
// The candidate nearest to `word`, or "" when none is within max(2, |word| / 3) edits.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);
// " (did you mean 'x'?)" for the nearest candidate, or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);
// A JSON-pointer reference token: escapes '~' as "~0" and '/' as "~1".
std::string pointer_token(std::string_view key);
std::string join(const std::vector<std::string>& items, std::string_view separator);

// Parses a JSON file within sim/json_file.h's size and depth limits; a missing file, a syntax
// error or a broken limit is a ConfigError.
nlohmann::json read_json_file(const std::filesystem::path& path);

// Checks that `value` is an integer in [lo, hi]; `what` names it in the message.
std::int64_t read_integer(const nlohmann::json& value, std::int64_t lo, std::int64_t hi,
                          const std::string& file, const std::string& pointer,
                          const std::string& what);

class ObjectReader {
 public:
  // Throws ConfigError unless `value` is an object. `context` prefixes messages ("op 'x'").
  ObjectReader(const nlohmann::json& value, std::string file, std::string pointer,
               std::string context);

  // Rejects any key not in `allowed`, suggesting the nearest allowed key.
  void allow_only(const std::vector<std::string>& allowed) const;
  bool has(std::string_view key) const;
  // The value under `key`; a missing key is a ConfigError.
  const nlohmann::json& get(std::string_view key) const;
  std::int64_t integer(std::string_view key, std::int64_t lo, std::int64_t hi) const;
  double number(std::string_view key, double lo, double hi) const;
  std::string string(std::string_view key) const;
  bool boolean(std::string_view key) const;

  std::string pointer(std::string_view key) const;
  const std::string& pointer() const { return pointer_; }
  const std::string& file() const { return file_; }
  const std::string& context() const { return context_; }
  [[noreturn]] void fail(std::string_view key, const std::string& message) const;

 private:
  const nlohmann::json* value_;
  std::string file_;
  std::string pointer_;
  std::string context_;
};

}  // namespace t3sim::workload
