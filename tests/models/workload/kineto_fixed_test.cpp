// Why fixed GPU time is not simulated (kineto_fixed.h): each fixed kernel of an import is counted
// under one reason that tells the user what to record (record_shapes, stride/padding, CPU
// activity), and the reasons' time adds up to the fixed time.
#include "models/workload/kineto_fixed.h"

#include <gtest/gtest.h>

#include "models/workload/kineto_import.h"
#include "tests/models/workload/kineto_test_events.h"

namespace t3sim::workload {
namespace {

const ImportSummary::Category& reason(const ImportSummary& s, FixedReason r) {
  return s.fixed_reasons[static_cast<std::size_t>(r)];
}

TEST(KinetoFixed, EachFixedKernelIsCountedUnderWhatWouldMakeItSimulated) {
  const nlohmann::json dims = {{"Input Dims", {{8, 3, 224, 224}, {64, 3, 7, 7}}}};
  nlohmann::json strided = dims;
  strided["Concrete Inputs"] = {"", "", "", "[2, 2]", "[3, 3]"};
  const nlohmann::json events = {
      {"traceEvents",
       {testing::kineto_cpu_op("aten::mm", 1, nlohmann::json::object()),  // record_shapes off
        testing::kineto_kernel("ampere_sgemm_128x64_nn", 0, 10, 1),
        testing::kineto_cpu_op("aten::convolution", 2, nlohmann::json::object()),  // off again
        testing::kineto_kernel("implicit_convolve_sgemm", 20, 20, 2),
        testing::kineto_cpu_op("aten::convolution", 3, dims),  // shapes, but no stride/padding
        testing::kineto_kernel("implicit_convolve_sgemm", 50, 30, 3),
        testing::kineto_cpu_op("aten::convolution", 4, strided),  // all recorded: not modelled
        testing::kineto_kernel("implicit_convolve_sgemm", 90, 40, 4),
        testing::kineto_kernel("vectorized_elementwise_kernel", 140, 50,
                               99),  // no op with External id 99
        testing::kineto_cpu_op("aten::cat", 5,
                               nlohmann::json::object()),  // outside the memory-op table
        testing::kineto_kernel("vectorized_elementwise_kernel", 200, 60, 5),
        {{"ph", "X"},
         {"cat", "gpu_memcpy"},
         {"name", "Memcpy HtoD"},
         {"pid", 0},
         {"tid", 7},
         {"ts", 300},
         {"dur", 70},
         {"args", {{"stream", 7}}}}}}};
  const KinetoImport k = import_kineto_profile(events, "why.json");
  const ImportSummary& s = k.summary;
  EXPECT_EQ(reason(s, FixedReason::kNoShapes).ops, 2);
  EXPECT_DOUBLE_EQ(reason(s, FixedReason::kNoShapes).gpu_us, 30.0);
  EXPECT_DOUBLE_EQ(reason(s, FixedReason::kConvNoStride).gpu_us, 30.0);
  EXPECT_DOUBLE_EQ(reason(s, FixedReason::kConvolution).gpu_us, 40.0);
  EXPECT_DOUBLE_EQ(reason(s, FixedReason::kUnknownKernel).gpu_us, 50.0);
  EXPECT_DOUBLE_EQ(reason(s, FixedReason::kOtherKernel).gpu_us, 60.0);
  EXPECT_DOUBLE_EQ(reason(s, FixedReason::kHostCopy).gpu_us, 70.0);  // PCIe: not modelled
  double fixed = 0;
  for (const auto& c : s.fixed_reasons) fixed += c.gpu_us;
  EXPECT_DOUBLE_EQ(fixed, s.gpu_us);  // nothing is simulated here: every microsecond has a reason
  const nlohmann::ordered_json j = to_json(s);
  ASSERT_TRUE(j.contains("not_simulated"));
  EXPECT_EQ(j["not_simulated"][0]["reason"], "no_shapes");
  EXPECT_EQ(j["not_simulated"][0]["fix"], "profile with record_shapes=True");
  EXPECT_NE(format_summary(s).find("no shapes recorded (record_shapes off)"), std::string::npos)
      << format_summary(s);
}

TEST(KinetoFixed, EveryReasonHasAKeyAndText) {
  for (std::size_t i = 0; i < kFixedReasons; ++i) {
    const auto r = static_cast<FixedReason>(i);
    EXPECT_FALSE(to_string(r).empty());
    EXPECT_FALSE(describe(r).empty());
  }
  EXPECT_EQ(fix_hint(FixedReason::kNoShapes), "profile with record_shapes=True");
}

}  // namespace
}  // namespace t3sim::workload
