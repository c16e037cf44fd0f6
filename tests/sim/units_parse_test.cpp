// Contracts of sim/units_parse.h: exact decimal parsing, decimal vs binary prefixes, bits vs bytes,
// bare numbers and unknown units rejected with a helpful message, format -> parse round trips.
#include "sim/units_parse.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/rng.h"

namespace t3sim {
namespace {

// Values worth round-tripping: edges, powers of 2 and 10, their neighbours, and random ones.
std::vector<uint64_t> interesting_values(uint64_t seed) {
  std::vector<uint64_t> v{0,    1,    2,    7,    999,        1000,
                          1001, 1023, 1024, 1536, UINT64_MAX, UINT64_MAX - 1};
  for (int s = 1; s < 64; ++s) {
    v.push_back(1ULL << s);
    v.push_back((1ULL << s) - 1);
  }
  for (uint64_t p = 10; p <= 1'000'000'000'000'000'000ULL; p *= 10) {
    v.push_back(p);
    v.push_back(p + 1);
    v.push_back(p * 3 / 2);
  }
  Rng rng(seed, "units");
  for (int i = 0; i < 3000; ++i) {
    v.push_back(rng.next() >> rng.below(64));
  }
  return v;
}

TEST(UnitsParse, DurationRoundTrips) {
  for (const uint64_t ps : interesting_values(1)) {
    const std::string text = format_duration(Duration::ps(ps));
    EXPECT_EQ(parse_duration(text).count_ps(), ps) << text;
  }
}

TEST(UnitsParse, FrequencyRoundTrips) {
  for (const uint64_t hz : interesting_values(2)) {
    if (hz == 0) continue;  // a frequency must be positive
    const std::string text = format_frequency(Frequency::hz(hz));
    EXPECT_EQ(parse_frequency(text).count_hz(), hz) << text;
  }
}

TEST(UnitsParse, BytesRoundTrip) {
  for (const uint64_t b : interesting_values(3)) {
    const std::string text = format_bytes(Bytes(b));
    EXPECT_EQ(parse_bytes(text).count(), b) << text;
  }
}

TEST(UnitsParse, BandwidthRoundTrips) {
  for (const uint64_t bps : interesting_values(4)) {
    const std::string text = format_bandwidth(Bandwidth::bytes_per_s(bps));
    EXPECT_EQ(parse_bandwidth(text).bytes_per_second(), bps) << text;
  }
}

TEST(UnitsParse, FormatPicksTheLargestExactUnit) {
  EXPECT_EQ(format_duration(Duration::ns(500)), "500 ns");
  EXPECT_EQ(format_duration(Duration::ps(1500)), "1.5 ns");
  EXPECT_EQ(format_frequency(Frequency::hz(1'410'000'000)), "1410 MHz");
  EXPECT_EQ(format_frequency(Frequency::hz(2'000'000'000)), "2 GHz");
  EXPECT_EQ(format_bytes(Bytes::mib(16)), "16 MiB");
  EXPECT_EQ(format_bytes(Bytes(3'000'000'000)), "3 GB");
  EXPECT_EQ(format_bandwidth(Bandwidth::gbps(900)), "900 GB/s");
}

TEST(UnitsParse, DecimalFrequencyIsExact) {
  EXPECT_EQ(parse_frequency("1.4 GHz").count_hz(), 1'400'000'000U);
  EXPECT_EQ(parse_frequency("1.41 GHz").count_hz(), 1'410'000'000U);
  EXPECT_EQ(parse_frequency("0.1 GHz").count_hz(), 100'000'000U);  // 0.1 is not exact in binary
  EXPECT_EQ(parse_frequency("1755 MHz").count_hz(), 1'755'000'000U);
}

TEST(UnitsParse, DecimalAndBinaryPrefixesDiffer) {
  EXPECT_EQ(parse_bytes("1 GB").count(), 1'000'000'000U);
  EXPECT_EQ(parse_bytes("1 GiB").count(), 1ULL << 30);
  EXPECT_NE(parse_bytes("1 GB"), parse_bytes("1 GiB"));
  EXPECT_EQ(parse_bytes("16 MiB").count(), 16ULL << 20);
  EXPECT_EQ(parse_bytes("2 KB").count(), 2000U);
  EXPECT_EQ(parse_bandwidth("1 GiB/s").bytes_per_second(), 1ULL << 30);
}

TEST(UnitsParse, BitsPerSecondAreEighthsOfBytes) {
  EXPECT_EQ(parse_bandwidth("400 Gb/s"), parse_bandwidth("50 GB/s"));
  EXPECT_EQ(parse_bandwidth("400 Gb/s").bytes_per_second(), 50'000'000'000ULL);
  EXPECT_EQ(parse_bandwidth("200 Gbps"), parse_bandwidth("25 GB/s"));
  EXPECT_EQ(parse_bandwidth("1 Mb/s").bytes_per_second(), 125'000U);
}

TEST(UnitsParse, DurationsAndSpacing) {
  EXPECT_EQ(parse_duration("500 ns").count_ps(), 500'000U);
  EXPECT_EQ(parse_duration("500ns").count_ps(), 500'000U);
  EXPECT_EQ(parse_duration("  2.5 us  ").count_ps(), 2'500'000U);
  EXPECT_EQ(parse_duration("2.5 \xC2\xB5s").count_ps(), 2'500'000U);
  EXPECT_EQ(parse_duration("1 s").count_ps(), 1'000'000'000'000U);
  EXPECT_EQ(parse_duration("1_000 ps").count_ps(), 1000U);
}

TEST(UnitsParse, RoundsToTheNearestBaseUnit) {
  EXPECT_EQ(parse_duration("1.4 ps").count_ps(), 1U);
  EXPECT_EQ(parse_duration("1.5 ps").count_ps(), 2U);
  EXPECT_EQ(parse_duration("0.0004 ns").count_ps(), 0U);
  EXPECT_EQ(parse_bandwidth("3 Mb/s").bytes_per_second(), 375'000U);
}

TEST(UnitsParse, BareNumbersAreRejected) {
  try {
    parse_duration("500");
    FAIL() << "a bare number was accepted";
  } catch (const UnitError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bare number"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ns"), std::string::npos) << msg;
  }
  EXPECT_THROW(parse_bandwidth("900"), UnitError);
  EXPECT_THROW(parse_bytes("16"), UnitError);
  EXPECT_THROW(parse_frequency("1.4"), UnitError);
}

TEST(UnitsParse, UnknownUnitsAreRejectedWithTheList) {
  try {
    parse_bandwidth("1 TB");
    FAIL() << "a size was accepted as a bandwidth";
  } catch (const UnitError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unknown unit 'TB'"), std::string::npos) << msg;
    for (const char* unit : {"B/s", "GB/s", "GiB/s", "Gb/s", "Gbps"}) {
      EXPECT_NE(msg.find(unit), std::string::npos) << unit << " missing from: " << msg;
    }
  }
  EXPECT_THROW(parse_duration("5 parsecs"), UnitError);
  EXPECT_THROW(parse_frequency("1 Ghz"), UnitError);  // units are case-sensitive
  EXPECT_THROW(parse_bytes("1 gb"), UnitError);
}

TEST(UnitsParse, MalformedNumbersAreRejected) {
  EXPECT_THROW(parse_duration(""), UnitError);
  EXPECT_THROW(parse_duration("ns"), UnitError);
  EXPECT_THROW(parse_duration("-5 ns"), UnitError);
  EXPECT_THROW(parse_duration("1.2.3 ns"), UnitError);
  EXPECT_THROW(parse_frequency("0 Hz"), UnitError);
  EXPECT_THROW(parse_frequency("0.4 Hz"), UnitError);  // rounds to zero
}

TEST(UnitsParse, OverflowIsAnErrorNotAWrongValue) {
  EXPECT_THROW(parse_duration("18446745 s"), UnitError);  // > 2^64 ps
  EXPECT_THROW(parse_bytes("18446744073709551616 B"), UnitError);
  EXPECT_EQ(parse_bytes("18446744073709551615 B").count(), UINT64_MAX);
  // Long digit strings would overflow the 128-bit intermediates: rejected, never wrapped.
  EXPECT_THROW(parse_bandwidth("10000000000000000000000000000000 TB/s"), UnitError);
  EXPECT_THROW(parse_duration("0.0000000000000000000000000000000000000001 s"), UnitError);
  EXPECT_EQ(parse_duration("0.000000000000000000000001 s").count_ps(), 0U);  // 24 places is fine
}

}  // namespace
}  // namespace t3sim
