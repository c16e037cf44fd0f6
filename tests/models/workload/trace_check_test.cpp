#include <gtest/gtest.h>

#include "models/workload/trace.h"
#include "sim/errors.h"

namespace t3sim::workload {
namespace {

Trace chain(int n) {
  Trace trace;
  for (int i = 0; i < n; ++i) {
    Op op;
    op.id = "op" + std::to_string(i);
    op.kind = OpKind::kFixed;
    op.duration_us = 1.0;
    if (i > 0) op.deps = {"op" + std::to_string(i - 1)};
    trace.ops.push_back(op);
  }
  return trace;
}

TEST(TraceCheck, LongChainIsADag) { EXPECT_NO_THROW(check_trace(chain(200000), "chain")); }

TEST(TraceCheck, DepsMayPointForward) {
  Trace trace = chain(3);
  trace.ops[0].deps = {"op2"};
  trace.ops[2].deps = {};
  EXPECT_NO_THROW(check_trace(trace, "forward"));
}

TEST(TraceCheck, CycleNamesItsOps) {
  Trace trace = chain(5);
  trace.ops[1].deps.push_back("op3");
  try {
    check_trace(trace, "cyc");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/ops/1/deps");
    EXPECT_NE(std::string(e.what()).find("'op1' -> 'op3' -> 'op2' -> 'op1'"), std::string::npos)
        << e.what();
  }
}

TEST(TraceCheck, SelfDependencyIsACycle) {
  Trace trace = chain(2);
  trace.ops[1].deps = {"op1"};
  EXPECT_THROW(check_trace(trace, "self"), ConfigError);
}

TEST(TraceCheck, EmptyIdIsRejected) {
  Trace trace = chain(2);
  trace.ops[1].id.clear();
  EXPECT_THROW(check_trace(trace, "empty"), ConfigError);
}

}  // namespace
}  // namespace t3sim::workload
