#include "sim/gzip_file.h"

#include <vector>

#include <zlib.h>

#include "sim/errors.h"

namespace t3sim {
namespace {

// Frees the zlib stream on every exit path.
struct Inflater {
  z_stream z{};
  bool open = false;
  ~Inflater() {
    if (open) inflateEnd(&z);
  }
};

}  // namespace

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(std::string_view compressed, const std::string& file, std::uint64_t max_bytes) {
  const auto corrupt = [&](const std::string& why) {
    return ConfigError(file, "",
                       "the gzip data is corrupt or truncated (" + why +
                           "); check the file with `gzip -t` or copy it again");
  };
  Inflater in;
  // 15 + 16: a gzip header and trailer around the deflate stream.
  if (inflateInit2(&in.z, 15 + 16) != Z_OK) throw corrupt("zlib could not start");
  in.open = true;
  std::string out;
  std::vector<char> buffer(std::size_t{1} << 16);
  std::size_t pos = 0;
  while (pos < compressed.size()) {
    // zlib counts in uInt: feed at most 1 GiB at a time.
    const std::size_t feed = std::min<std::size_t>(compressed.size() - pos, std::size_t{1} << 30);
    in.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + pos));
    in.z.avail_in = static_cast<uInt>(feed);
    int rc = Z_OK;
    do {
      in.z.next_out = reinterpret_cast<Bytef*>(buffer.data());
      in.z.avail_out = static_cast<uInt>(buffer.size());
      rc = inflate(&in.z, Z_NO_FLUSH);
      if (rc == Z_BUF_ERROR) break;  // no progress possible: this feed is used up
      if (rc != Z_OK && rc != Z_STREAM_END) {
        throw corrupt(in.z.msg != nullptr ? in.z.msg : "inflate error " + std::to_string(rc));
      }
      out.append(buffer.data(), buffer.size() - in.z.avail_out);
      if (out.size() > max_bytes) {
        throw ConfigError(file, "",
                          "decompresses to over " + std::to_string(max_bytes >> 20) +
                              " MiB, the most t3sim reads; split the trace");
      }
    } while (in.z.avail_out == 0 && rc != Z_STREAM_END);
    pos += feed - in.z.avail_in;
    if (rc == Z_STREAM_END) {
      if (pos == compressed.size()) return out;
      if (inflateReset(&in.z) != Z_OK) throw corrupt("zlib could not restart");  // next member
    } else if (in.z.avail_in == 0 && pos == compressed.size()) {
      break;
    }
  }
  throw corrupt("the data ends inside the compressed stream");
}

}  // namespace t3sim
