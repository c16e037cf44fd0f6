// JSON Pointer (RFC 6901) reference tokens: the one escaper every error message and config walk
// uses to name a key inside a pointer. '~' becomes "~0" and '/' becomes "~1"; every other byte is
// kept, so a token never contains an unescaped '/'. Pure function, no state.
#pragma once

#include <string>
#include <string_view>

namespace t3sim {

// A JSON-pointer reference token for `key`: escapes '~' as "~0" and '/' as "~1".
inline std::string pointer_token(std::string_view key) {
  std::string out;
  out.reserve(key.size());
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

}  // namespace t3sim
