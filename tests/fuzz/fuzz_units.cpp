// Fuzz target: the unit parsers (sim/units_parse.h). Every input is tried as a duration, frequency,
// size and bandwidth. Properties: only UnitError escapes; a parsed value formats to text that
// parses back to the same value; and the first 8 bytes, read as a raw 64-bit value, round-trip
// through format_* and parse_* for all four quantities (the header's contract).
#include <cstring>

#include "tests/fuzz/fuzz_common.h"

namespace t3sim::fuzz {
namespace {

template <typename T, typename Parse, typename Format, typename Count>
void round_trip_text(std::string_view text, Parse parse, Format format, Count count,
                     const char* what) {
  std::optional<T> value;
  expect_input_errors_only(what, [&] { value = parse(text); });
  if (!value) return;
  const std::string printed = format(*value);
  std::optional<T> again;
  try {
    again = parse(printed);
  } catch (const std::exception& e) {
    fuzz_fail(std::string(what) + ": '" + std::string(text) + "' parsed to " +
              std::to_string(count(*value)) + ", printed as '" + printed +
              "', which does not parse: " + e.what());
  }
  if (count(*again) != count(*value)) {
    fuzz_fail(std::string(what) + ": '" + printed + "' parses to " + std::to_string(count(*again)) +
              ", not " + std::to_string(count(*value)));
  }
}

template <typename T, typename Parse, typename Format, typename Count>
void round_trip_value(T value, Parse parse, Format format, Count count, const char* what) {
  const std::string printed = format(value);
  try {
    if (count(parse(printed)) != count(value)) {
      fuzz_fail(std::string(what) + ": " + std::to_string(count(value)) + " printed as '" +
                printed + "' parses to " + std::to_string(count(parse(printed))));
    }
  } catch (const UnitError& e) {
    fuzz_fail(std::string(what) + ": " + std::to_string(count(value)) + " printed as '" + printed +
              "', which does not parse: " + e.what());
  }
}

}  // namespace
}  // namespace t3sim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace t3sim;
  using namespace t3sim::fuzz;
  if (size > 256) return -1;  // unit strings are short; longer inputs add nothing
  const std::string_view text = as_text(data, size);
  const auto ps = [](Duration d) { return d.count_ps(); };
  const auto hz = [](Frequency f) { return f.count_hz(); };
  const auto bytes = [](Bytes b) { return b.count(); };
  const auto bps = [](Bandwidth b) { return b.bytes_per_second(); };
  round_trip_text<Duration>(text, parse_duration, format_duration, ps, "duration");
  round_trip_text<Frequency>(text, parse_frequency, format_frequency, hz, "frequency");
  round_trip_text<Bytes>(text, parse_bytes, format_bytes, bytes, "size");
  round_trip_text<Bandwidth>(text, parse_bandwidth, format_bandwidth, bps, "bandwidth");
  if (size >= 8) {
    uint64_t raw = 0;
    std::memcpy(&raw, data, sizeof raw);
    round_trip_value(Duration::ps(raw), parse_duration, format_duration, ps, "duration");
    if (raw != 0) {  // 0 Hz is not a frequency (parse_frequency rejects it by contract)
      round_trip_value(Frequency::hz(raw), parse_frequency, format_frequency, hz, "frequency");
    }
    round_trip_value(Bytes(raw), parse_bytes, format_bytes, bytes, "size");
    round_trip_value(Bandwidth::bytes_per_s(raw), parse_bandwidth, format_bandwidth, bps,
                     "bandwidth");
  }
  return 0;
}
