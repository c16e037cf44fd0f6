// Strict reading of plain JSON documents that are not configs with "extends" (model files, traces,
// Kineto traces, catalogues). Every failure is a ConfigError naming the file, the JSON pointer and
// the fix; an unknown key gets "did you mean" (sim/did_you_mean.h). Integers must be JSON integers
// (no 1024.0) within the stated range; numbers must be finite. No state beyond the value read.
// Files are parsed by sim/json_file.h's read_json_file (size and depth limits).
// Contract: ObjectReader holds a pointer to the JSON value; the value must outlive the reader.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/did_you_mean.h"
#include "sim/json_file.h"
#include "sim/json_pointer.h"

namespace t3sim {

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

}  // namespace t3sim
