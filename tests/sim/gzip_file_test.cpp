// sim/gzip_file.h: gzip data (one member and two concatenated) decompresses to the original;
// read_json_file takes a ".json.gz"; truncated and corrupt data, and output over the limit (a
// small bomb), are one-line ConfigErrors naming the file.
#include "sim/gzip_file.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <string>

#include "sim/errors.h"
#include "sim/json_file.h"
#include "tests/support/scratch_dir.h"

namespace t3sim {
namespace {

// `text` as one gzip member (zlib's deflate with a gzip wrapper: windowBits 15 + 16).
std::string gzip(const std::string& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string error_of(const std::string& bytes, std::uint64_t limit) {
  try {
    gunzip(bytes, "t.json.gz", limit);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Gzip, RoundTripsOneAndSeveralMembers) {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += std::to_string(i * 7919 % 1000003) + ",";
  const std::string gz = gzip(text);
  ASSERT_TRUE(is_gzip(gz));
  EXPECT_FALSE(is_gzip(text));
  EXPECT_LT(gz.size(), text.size());
  EXPECT_EQ(gunzip(gz, "t.gz", text.size()), text);
  EXPECT_EQ(gunzip(gz + gzip("tail"), "t.gz", text.size() + 4), text + "tail");
}

TEST(Gzip, TruncatedCorruptAndOversizedDataAreOneLineErrors) {
  const std::string gz = gzip(std::string(1 << 20, 'a'));
  std::string e = error_of(gz.substr(0, gz.size() / 2), 1 << 21);
  EXPECT_NE(e.find("t.json.gz"), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
  std::string bad = gz;
  bad[12] = static_cast<char>(bad[12] ^ 0x55);
  e = error_of(bad, 1 << 21);
  EXPECT_NE(e.find("corrupt"), std::string::npos) << e;
  // 1 MiB of one byte compresses to about 1 KiB: refused once the output passes the limit.
  e = error_of(gz, 1 << 19);
  EXPECT_NE(e.find("decompresses to over"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(Gzip, JsonReaderTakesACompressedFile) {
  const testing::ScratchDir dir("gzip_json");
  const auto path = dir / "trace.json.gz";
  std::ofstream(path, std::ios::binary) << gzip(R"({"traceEvents": [{"ph": "X", "ts": 1}]})");
  const nlohmann::json j = read_json_file(path);
  EXPECT_EQ(j["traceEvents"][0]["ts"], 1);
}

}  // namespace
}  // namespace t3sim
