#include "sim/strict_json.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/errors.h"

namespace t3sim {

std::int64_t read_integer(const nlohmann::json& value, std::int64_t lo, std::int64_t hi,
                          const std::string& file, const std::string& pointer,
                          const std::string& what) {
  bool is_int64 = false;
  std::int64_t v = 0;
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    is_int64 = u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    v = static_cast<std::int64_t>(u);
  } else if (value.is_number_integer()) {
    is_int64 = true;
    v = value.get<std::int64_t>();
  }
  if (!is_int64 || v < lo || v > hi) {
    throw ConfigError(file, pointer,
                      fmt::format("{} must be an integer in [{}, {}], got {}; set it in that range",
                                  what, lo, hi, value.dump()));
  }
  return v;
}

ObjectReader::ObjectReader(const nlohmann::json& value, std::string file, std::string pointer,
                           std::string context)
    : value_(&value),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      context_(std::move(context)) {
  if (!value.is_object()) {
    throw ConfigError(file_, pointer_,
                      fmt::format("{} must be a JSON object, got {}", context_, value.type_name()));
  }
}

void ObjectReader::allow_only(const std::vector<std::string>& allowed) const {
  for (const auto& [key, unused] : value_->items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    fail(key, fmt::format("unknown key \"{}\"{}; allowed keys: {}", key, did_you_mean(key, allowed),
                          join(allowed, ", ")));
  }
}

bool ObjectReader::has(std::string_view key) const { return value_->contains(key); }

const nlohmann::json& ObjectReader::get(std::string_view key) const {
  const auto it = value_->find(key);
  if (it == value_->end()) fail(key, fmt::format("missing required key \"{}\"; add it", key));
  return *it;
}

std::int64_t ObjectReader::integer(std::string_view key, std::int64_t lo, std::int64_t hi) const {
  return read_integer(get(key), lo, hi, file_, pointer(key),
                      fmt::format("{}: \"{}\"", context_, key));
}

double ObjectReader::number(std::string_view key, double lo, double hi) const {
  const nlohmann::json& value = get(key);
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < lo ||
      value.get<double>() > hi) {
    fail(key, fmt::format("\"{}\" must be a number in [{}, {}], got {}; set it in that range", key,
                          lo, hi, value.dump()));
  }
  return value.get<double>();
}

std::string ObjectReader::string(std::string_view key) const {
  const nlohmann::json& value = get(key);
  if (!value.is_string()) {
    fail(key, fmt::format("\"{}\" must be a string, got {}", key, value.dump()));
  }
  return value.get<std::string>();
}

bool ObjectReader::boolean(std::string_view key) const {
  const nlohmann::json& value = get(key);
  if (!value.is_boolean()) {
    fail(key, fmt::format("\"{}\" must be true or false, got {}", key, value.dump()));
  }
  return value.get<bool>();
}

std::string ObjectReader::pointer(std::string_view key) const {
  return pointer_ + "/" + pointer_token(key);
}

void ObjectReader::fail(std::string_view key, const std::string& message) const {
  throw ConfigError(file_, pointer(key), context_ + ": " + message);
}

}  // namespace t3sim
