#include "sim/json_file.h"

#include <fstream>
#include <vector>

#include "sim/errors.h"

namespace t3sim {
namespace {

constexpr std::size_t kShownLevels = 8;  // of the pointer to a too-deep value

// A SAX pass over the text that follows the JSON pointer of the value being read and throws a
// ConfigError at the first container deeper than kMaxJsonDepth; it builds nothing. (A parser
// callback would do the same in one pass, but nlohmann's callback parser rescans the parent
// container after each child, which is quadratic in the length of an array of objects.)
class DepthCheck {
 public:
  using json = nlohmann::json;
  DepthCheck(const std::string& file, const std::string& pointer)
      : file_(file), pointer_(pointer) {}

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(json::number_integer_t) { return value(); }
  bool number_unsigned(json::number_unsigned_t) { return value(); }
  bool number_float(json::number_float_t, const json::string_t&) { return value(); }
  bool string(json::string_t&) { return value(); }
  bool binary(json::binary_t&) { return value(); }
  bool start_object(std::size_t) { return open(false); }
  bool start_array(std::size_t) { return open(true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& key) {
    frames_.back().key = key;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const json::exception&) {
    return false;  // the parse that follows reports the syntax error
  }

 private:
  struct Frame {
    bool array;
    std::string key;          // object: the key of the member being read
    std::size_t started = 0;  // array: elements started so far
  };

  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().started;
    return true;
  }
  bool open(bool array) {
    value();
    if (frames_.size() >= static_cast<std::size_t>(kMaxJsonDepth)) fail();
    frames_.push_back({array, {}, 0});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  // The reference token of the member or element being read in `f`.
  static std::string token(const Frame& f) {
    if (f.array) return std::to_string(f.started - 1);
    std::string out;
    for (char c : f.key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
  }

  [[noreturn]] void fail() const {
    std::string at = pointer_;
    for (std::size_t i = 0; i < frames_.size() && i < kShownLevels; ++i) {
      at += '/';
      at += token(frames_[i]);
    }
    throw ConfigError(file_, at,
                      "JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                          " levels in this value; t3sim inputs are a few levels deep (is it the "
                          "right file? flatten the value)");
  }

  const std::string& file_;
  const std::string& pointer_;
  std::vector<Frame> frames_;
};

// True when `text` is JSON within the depth limit, false on a syntax error.
bool check_depth(std::string_view text, const std::string& file, const std::string& pointer) {
  DepthCheck check(file, pointer);
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
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxJsonFileBytes) throw too_big(size);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path.string(), "", "cannot open the file (check the path)");
  std::string text;
  std::vector<char> chunk(std::size_t{1} << 16);
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxJsonFileBytes) throw too_big(text.size());
  }
  if (in.bad()) throw ConfigError(path.string(), "", "cannot read the file (check permissions)");
  return text;
}

}  // namespace

nlohmann::json read_json_file(const std::filesystem::path& path) {
  const std::string text = read_bounded(path);
  const std::string file = path.string();
  try {
    check_depth(text, file, "");
    return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/true,
                                 /*ignore_comments=*/false);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(file, "",
                      std::string("invalid JSON: ") + e.what() + " (fix the syntax at that byte)");
  }
}

std::optional<nlohmann::json> try_parse_json(std::string_view text, const std::string& file,
                                             const std::string& pointer) {
  if (!check_depth(text, file, pointer)) return std::nullopt;
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
