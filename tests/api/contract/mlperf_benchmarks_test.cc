#include "api/contract/mlperf_benchmarks.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

// mlcommons/logging's benchmark_meta.py.
TEST(MlperfBenchmarks, RequiredRunsAreTheSummarizersCounts) {
  EXPECT_EQ(MlperfRequiredRuns("resnet"), 5);
  EXPECT_EQ(MlperfRequiredRuns("bert"), 10);
  EXPECT_EQ(MlperfRequiredRuns("unet3d"), 40);
  EXPECT_EQ(MlperfRequiredRuns("cosmoflow"), 10);
  EXPECT_EQ(MlperfRequiredRuns("deepcam"), 5);
  EXPECT_EQ(MlperfRequiredRuns("fmnist"), 0);
  EXPECT_EQ(MlperfDroppableRuns("unet3d"), 4);
  EXPECT_EQ(MlperfDroppableRuns("resnet"), 1);
}

TEST(MlperfBenchmarks, Resnet50IsMlperfsResnetAndOtherTasksKeepTheirIds) {
  EXPECT_EQ(MlperfBenchmarkName("resnet50"), "resnet");
  EXPECT_EQ(MlperfBenchmarkName("1a"), "1a");
}

}  // namespace
}  // namespace ergobench
