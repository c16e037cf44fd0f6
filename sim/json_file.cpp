#include "sim/json_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <unordered_set>
#include <vector>

#include "sim/errors.h"
#include "sim/gzip_file.h"

namespace t3sim {
namespace {

constexpr std::size_t kShownLevels = 8;  // of the pointer to a too-deep value
// One string or key: the parse and the config resolver copy it a few times over (kept here, not in
// the header, which every reader includes).
constexpr std::size_t kMaxJsonStringBytes = std::size_t{16} << 20;
constexpr std::size_t kLinearKeySearch = 16;  // keys of one object searched linearly, then hashed

// A SAX pass over the text that follows the JSON pointer of the value being read and throws a
// ConfigError at the first container deeper than kMaxJsonDepth, the first duplicate key in an
// object (a parsed document keeps only the last, so the first would be ignored in silence) and the
// first number too large for a double (1e400); it builds nothing. (A parser callback would do the
// same in one pass, but nlohmann's callback parser rescans the parent container after each child,
// which is quadratic in the length of an array of objects.)
class StructureCheck {
 public:
  using json = nlohmann::json;
  StructureCheck(const std::string& file, const std::string& pointer)
      : file_(file), pointer_(pointer) {}

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(json::number_integer_t) { return value(); }
  bool number_unsigned(json::number_unsigned_t) { return value(); }
  bool number_float(json::number_float_t, const json::string_t&) { return value(); }
  bool string(json::string_t& s) {
    check_length(s, "string");
    take(kStringBytes + heap_chars(s.size()));
    return value();
  }
  bool binary(json::binary_t&) { return value(); }
  bool start_object(std::size_t) {
    take(kObjectBytes);
    return open(false);
  }
  bool start_array(std::size_t) {
    take(kArrayBytes);
    return open(true);
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& key) {
    check_length(key, "key");
    take(kMemberBytes + heap_chars(key.size()));
    Frame& f = frames_.back();
    f.key = key;
    if (seen_before(f, key)) {
      fail(frames_.size(), "duplicate key \"" + key +
                               "\" in this object (only one of them would be read); remove the "
                               "duplicate");
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string& token, const json::exception& e) {
    if (e.id == kNumberOverflow) {
      value();
      fail(frames_.size(), "number " + token +
                               " is out of the range of a double; write a value within "
                               "+-1.7e308");
    }
    return false;  // the parse that follows reports the syntax error
  }

 private:
  static constexpr int kNumberOverflow = 406;  // nlohmann's out_of_range.406
  // Memory of a parsed nlohmann::json (libstdc++, 64-bit): a value is 16 bytes; an array element
  // counts twice that (a vector's spare capacity); an object or array allocates its map (48 B) or
  // vector (24 B), a member a map node (32 B links + 32 B key + 16 B value), a string value its
  // std::string (32 B); each allocation adds the allocator's ~16 B and strings of 16 characters or
  // more their characters.
  static constexpr std::uint64_t kMallocBytes = 16;
  static constexpr std::size_t kInlineChars = 16;
  static constexpr std::uint64_t kElementBytes = 32;
  static constexpr std::uint64_t kObjectBytes = 48 + kMallocBytes;
  static constexpr std::uint64_t kArrayBytes = 24 + kMallocBytes;
  static constexpr std::uint64_t kMemberBytes = 80 + kMallocBytes;
  static constexpr std::uint64_t kStringBytes = 32 + kMallocBytes;

  struct Frame {
    bool array;
    std::string key;            // object: the key of the member being read
    std::size_t started = 0;    // array: elements started so far
    std::size_t first_key = 0;  // object: where its keys start in keys_ (while few)
    std::unique_ptr<std::unordered_set<std::string>> many;  // object: its keys once many
  };

  bool value() {
    if (!frames_.empty() && frames_.back().array) {
      ++frames_.back().started;
      take(kElementBytes);
    }
    return true;
  }
  // Adds `bytes` to the estimate of the parsed document's memory; fails past kMaxJsonMemoryBytes.
  void take(std::uint64_t bytes) {
    estimate_ += bytes;
    if (estimate_ <= kMaxJsonMemoryBytes) return;
    fail(kShownLevels, "the document would take over " + std::to_string(kMaxJsonMemoryBytes >> 20) +
                           " MiB of memory once read (the limit; reached at this value): it has "
                           "too many values for a t3sim input (is it the right file? split it "
                           "into smaller ones)");
  }
  // A string is copied several times while it is parsed and resolved (text, lexer, value, the
  // resolved config): one long string alone must not take a gigabyte.
  void check_length(const json::string_t& s, const char* what) {
    if (s.size() <= kMaxJsonStringBytes) return;
    if (std::string_view(what) == "string") value();
    fail(kShownLevels, std::string("a ") + what + " of " + std::to_string(s.size() >> 20) +
                           " MiB; t3sim reads strings of at most " +
                           std::to_string(kMaxJsonStringBytes >> 20) +
                           " MiB (is it the right file? shorten the value)");
  }
  // Heap bytes of a string of `chars` characters (short ones live inside the string object).
  static std::uint64_t heap_chars(std::size_t chars) {
    return chars < kInlineChars ? 0 : chars + 1 + kMallocBytes;
  }
  bool open(bool array) {
    value();
    if (frames_.size() >= static_cast<std::size_t>(kMaxJsonDepth)) {
      fail(kShownLevels, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                             " levels in this value; t3sim inputs are a few levels deep (is it "
                             "the right file? flatten the value)");
    }
    frames_.push_back({array, {}, 0, keys_.size(), nullptr});
    return true;
  }
  bool close() {
    keys_.resize(frames_.back().first_key);
    frames_.pop_back();
    return true;
  }

  // Records `key` in object `f`; true when it was there already. Objects have a few keys, searched
  // in place; one with many moves them to a hash set (no quadratic search).
  bool seen_before(Frame& f, const std::string& key) {
    if (f.many) return !f.many->insert(key).second;
    const auto first = keys_.begin() + static_cast<std::ptrdiff_t>(f.first_key);
    if (std::find(first, keys_.end(), key) != keys_.end()) return true;
    keys_.push_back(key);
    if (keys_.size() - f.first_key > kLinearKeySearch) {
      f.many = std::make_unique<std::unordered_set<std::string>>(
          std::make_move_iterator(keys_.begin() + static_cast<std::ptrdiff_t>(f.first_key)),
          std::make_move_iterator(keys_.end()));
      keys_.resize(f.first_key);
    }
    return false;
  }

  // The reference token of the member or element being read in `f`.
  static std::string token(const Frame& f) {
    if (f.array) return std::to_string(f.started - 1);
    std::string out;
    for (char c : f.key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
  }

  // Throws a ConfigError at the value being read, its pointer shown to `levels` levels.
  [[noreturn]] void fail(std::size_t levels, const std::string& message) const {
    std::string at = pointer_;
    for (std::size_t i = 0; i < frames_.size() && i < levels; ++i) {
      at += '/';
      at += token(frames_[i]);
    }
    throw ConfigError(file_, at, message);
  }

  const std::string& file_;
  const std::string& pointer_;
  std::vector<Frame> frames_;
  std::vector<std::string> keys_;  // keys of the open objects that have few, outermost first
  std::uint64_t estimate_ = 0;     // bytes of the parsed document so far
};

// Refuses a string literal longer than kMaxJsonStringBytes by scanning the raw text, before the
// lexer (which keeps two growing copies of every token) ever holds it.
void check_string_lengths(std::string_view text, const std::string& file,
                          const std::string& pointer) {
  bool in_string = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!in_string) {
      if (c == '"') in_string = true, start = i;
      continue;
    }
    if (c == '\\') {
      ++i;
    } else if (c == '"') {
      in_string = false;
    } else if (i - start > kMaxJsonStringBytes) {
      throw ConfigError(file, pointer,
                        "a string at byte " + std::to_string(start) + " is over " +
                            std::to_string(kMaxJsonStringBytes >> 20) +
                            " MiB; t3sim reads strings of at most that (is it the right file? "
                            "shorten the value)");
    }
  }
}

// True when `text` is JSON within the depth limit with no duplicate key, false on a syntax error.
bool check_structure(std::string_view text, const std::string& file, const std::string& pointer) {
  check_string_lengths(text, file, pointer);
  StructureCheck check(file, pointer);
  return nlohmann::json::sax_parse(text, &check, nlohmann::json::input_format_t::json,
                                   /*strict=*/true, /*ignore_comments=*/false);
}

// The whole file, refusing one larger than kMaxJsonFileBytes before reading it (and, for a pipe
// whose size is unknown, as soon as it grows past the limit).
std::string read_bounded(const std::filesystem::path& path) {
  const auto too_big = [&](std::uintmax_t bytes) {
    return ConfigError(path.string(), "",
                       "file is " + std::to_string(bytes >> 20) + " MiB; t3sim reads JSON files " +
                           "of at most " + std::to_string(kMaxJsonFileBytes >> 20) +
                           " MiB (is it the right file? split it into smaller ones)");
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError(path.string(), "", "is a folder, not a JSON file; name a file in it");
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxJsonFileBytes) throw too_big(size);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw ConfigError(path.string(), "",
                      std::string("cannot open the file: ") + std::strerror(err) +
                          (err == EACCES ? " (check its permissions)" : " (check the path)"));
  }
  std::string text;
  if (!ec) text.reserve(static_cast<std::size_t>(size));  // no doubling past the file's size
  std::vector<char> chunk(std::size_t{1} << 16);
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxJsonFileBytes) throw too_big(text.size());
  }
  if (in.bad()) throw ConfigError(path.string(), "", "cannot read the file (check permissions)");
  if (is_gzip(text)) return gunzip(text, path.string(), kMaxJsonFileBytes);  // a ".json.gz"
  return text;
}

}  // namespace

nlohmann::json read_json_file(const std::filesystem::path& path) {
  const std::string text = read_bounded(path);
  const std::string file = path.string();
  try {
    check_structure(text, file, "");
    return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/true,
                                 /*ignore_comments=*/false);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(file, "",
                      std::string("invalid JSON: ") + e.what() + " (fix the syntax at that byte)");
  }
}

std::optional<nlohmann::json> try_parse_json(std::string_view text, const std::string& file,
                                             const std::string& pointer) {
  if (!check_structure(text, file, pointer)) return std::nullopt;
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/true,
                               /*ignore_comments=*/false);
}

bool is_valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t extra = 0;
    unsigned char lo = 0x80;  // range of the first continuation byte (RFC 3629 section 4)
    unsigned char hi = 0xBF;
    if (lead < 0x80) {
      extra = 0;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      extra = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      extra = 2;
      lo = lead == 0xE0 ? 0xA0 : lo;  // no overlong forms
      hi = lead == 0xED ? 0x9F : hi;  // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      extra = 3;
      lo = lead == 0xF0 ? 0x90 : lo;
      hi = lead == 0xF4 ? 0x8F : hi;  // nothing above U+10FFFF
    } else {
      return false;
    }
    if (text.size() - i <= extra) return false;
    for (std::size_t k = 1; k <= extra; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) return false;
    }
    i += extra + 1;
  }
  return true;
}

}  // namespace t3sim
