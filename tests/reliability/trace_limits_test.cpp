// Input limits of workload traces: negative, zero and oversized sizes, and
// dependency cycles, short and 100000 ops long, are ConfigErrors naming the op; a 100000-op chain
// (a valid DAG) is accepted without deep recursion.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "models/workload/trace.h"
#include "sim/errors.h"
#include "tests/reliability/rejects.h"

namespace t3sim::reliability {
namespace {

using nlohmann::json;

json gemm(const std::string& id, json shape = {{"m", 64}, {"n", 64}, {"k", 64}}) {
  return {
      {"id", id}, {"kind", "gemm"}, {"shape", std::move(shape)}, {"dtype", "fp16"}, {"stream", 0}};
}

json trace_of(json ops, json metadata = json::object()) {
  return {{"version", 1}, {"metadata", std::move(metadata)}, {"ops", std::move(ops)}};
}

bool parses(const json& t) {
  workload::parse_trace(t, "limits.json");
  return true;
}

TEST(TraceLimits, NegativeOrZeroSizes) {
  for (const char* dim : {"m", "n", "k", "batch"}) {
    for (const int64_t v : {int64_t{-1}, int64_t{0}, std::numeric_limits<int64_t>::min()}) {
      json shape = {{"m", 64}, {"n", 64}, {"k", 64}};
      shape[dim] = v;
      EXPECT_TRUE(rejects<ConfigError>([&] { parses(trace_of({gemm("g", shape)})); },
                                       std::string("/ops/0/shape/") + dim))
          << dim << " = " << v;
    }
  }
  for (const json& bytes : {json(0), json(-4096), json(workload::kMaxSize + 1),
                            json(std::numeric_limits<uint64_t>::max()), json(4096.0)}) {
    const json op = {{"id", "m"}, {"kind", "memory"}, {"bytes", bytes}, {"stream", 0}};
    EXPECT_TRUE(rejects<ConfigError>([&] { parses(trace_of({op})); }, "/ops/0/bytes"))
        << bytes.dump();
  }
  const json fixed = {{"id", "f"}, {"kind", "fixed"}, {"duration_us", -1.0}, {"stream", 0}};
  EXPECT_TRUE(rejects<ConfigError>([&] { parses(trace_of({fixed})); }, "/ops/0/duration_us"));
  const json ar = {{"id", "ar"},      {"kind", "all_reduce"}, {"bytes", 1024},
                   {"dtype", "fp16"}, {"tp_group", 0},        {"stream", 1}};
  EXPECT_TRUE(rejects<ConfigError>([&] { parses(trace_of({ar})); }, "/ops/0/tp_group"));
  EXPECT_TRUE(rejects<ConfigError>(
      [&] {
        parses(trace_of(json::array(), {{"tokens", -1}}));
      },
      "/metadata/tokens"));
}

TEST(TraceLimits, DependencyCycles) {
  json self = gemm("a");
  self["deps"] = {"a"};
  EXPECT_TRUE(rejects<ConfigError>([&] { parses(trace_of({self})); }, "dependency cycle"));
  json a = gemm("a");
  json b = gemm("b");
  json c = gemm("c");
  a["deps"] = {"c"};
  b["deps"] = {"a"};
  c["deps"] = {"b"};
  EXPECT_TRUE(rejects<ConfigError>(
      [&] {
        parses(trace_of({a, b, c}));
      },
      "'a' -> 'c' -> 'b' -> 'a'"));
}

TEST(TraceLimits, LongChainsAndLongCycles) {
  constexpr int kOps = 100'000;
  json ops = json::array();
  for (int i = 0; i < kOps; ++i) {
    json op = {
        {"id", "op" + std::to_string(i)}, {"kind", "fixed"}, {"duration_us", 1.0}, {"stream", 0}};
    if (i > 0) op["deps"] = {"op" + std::to_string(i - 1)};
    ops.push_back(std::move(op));
  }
  EXPECT_EQ(workload::parse_trace(trace_of(ops), "chain.json").ops.size(), size_t{kOps});
  ops[0]["deps"] = {"op" + std::to_string(kOps - 1)};  // close the chain into one long cycle
  EXPECT_TRUE(rejects<ConfigError>([&] { parses(trace_of(ops)); }, "-> ... ->"));
}

}  // namespace
}  // namespace t3sim::reliability
