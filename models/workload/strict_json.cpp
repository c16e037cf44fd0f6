#include "models/workload/strict_json.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/errors.h"
#include "sim/json_file.h"

namespace t3sim::workload {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    const std::size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string best = nearest(word, candidates);
  return best.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", best);
}

std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

nlohmann::json read_json_file(const std::filesystem::path& path) {
  return t3sim::read_json_file(path);
}

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

}  // namespace t3sim::workload
