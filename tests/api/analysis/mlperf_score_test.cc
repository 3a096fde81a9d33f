#include "api/analysis/mlperf_score.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

// The expected scores are what mlcommons/logging's result summarizer computes from the same
// times (its _compute_olympic_average, run on these lists).
std::vector<MlperfRun> Minutes(const std::vector<std::optional<double>>& minutes) {
  std::vector<MlperfRun> runs;
  for (const std::optional<double>& m : minutes) runs.push_back({m, std::nullopt, std::nullopt});
  return runs;
}

TEST(MlperfScore, FiveConvergedResnetRunsDropTheFastestAndTheSlowest) {
  const MlperfScore s = ScoreMlperfRuns("resnet", Minutes({10.0, 12.5, 11.0, 9.5, 14.0}));
  EXPECT_DOUBLE_EQ(*s.time_to_train_minutes, 11.166666666666666);  // (10 + 11 + 12.5) / 3
  EXPECT_EQ(s.required_runs, 5);
  EXPECT_EQ(s.runs, 5);
  EXPECT_EQ(s.converged, 5);
  EXPECT_TRUE(s.complete);
  EXPECT_EQ(s.note, "");
}

TEST(MlperfScore, ARunThatDidNotConvergeIsTheSlowestDropped) {
  const MlperfScore s = ScoreMlperfRuns("resnet", Minutes({10.0, 12.5, 11.0, 9.5, std::nullopt}));
  EXPECT_DOUBLE_EQ(*s.time_to_train_minutes, 11.166666666666666);  // 9.5 dropped; 14 was never measured
  EXPECT_EQ(s.converged, 4);
  EXPECT_TRUE(s.complete);
}

TEST(MlperfScore, TwoRunsThatDidNotConvergeLeaveNoScore) {
  const MlperfScore s = ScoreMlperfRuns("resnet", Minutes({10.0, 12.5, 11.0, std::nullopt, std::nullopt}));
  EXPECT_FALSE(s.time_to_train_minutes.has_value());
  EXPECT_FALSE(s.complete);
  EXPECT_EQ(s.note, "2 runs of 5 did not converge; MLPerf's score allows 1");
}

TEST(MlperfScore, Unet3dMayDropFourAndDropsFourFromTheFastEnd) {
  std::vector<std::optional<double>> minutes;
  for (int i = 0; i < 37; ++i) minutes.push_back(20.0 + 0.25 * i);
  minutes.insert(minutes.end(), 3, std::nullopt);
  const MlperfScore s = ScoreMlperfRuns("unet3d", Minutes(minutes));
  EXPECT_DOUBLE_EQ(*s.time_to_train_minutes, 24.875);  // 21.0 .. 28.75: four fast and one slow dropped
  EXPECT_TRUE(s.complete);
}

TEST(MlperfScore, FewerRunsThanRequiredScoreButAreNotComplete) {
  const MlperfScore s = ScoreMlperfRuns("resnet", Minutes({2.0, 1.5, 3.0}));
  EXPECT_DOUBLE_EQ(*s.time_to_train_minutes, 2.0);
  EXPECT_FALSE(s.complete);
  EXPECT_EQ(s.note, "3 runs of the 5 MLPerf requires for resnet");
  const MlperfScore two = ScoreMlperfRuns("resnet", Minutes({2.0, 1.5}));
  EXPECT_FALSE(two.time_to_train_minutes.has_value());
  EXPECT_EQ(two.note, "too few converged runs to drop the fastest and the slowest");
}

TEST(MlperfScore, ATaskMlperfDoesNotHaveIsScoredByItsRulesAndSaysSo) {
  const MlperfScore s = ScoreMlperfRuns("fmnist", Minutes({2.0, 1.5, 3.0}));
  EXPECT_DOUBLE_EQ(*s.time_to_train_minutes, 2.0);
  EXPECT_EQ(s.required_runs, 0);
  EXPECT_FALSE(s.complete);
  EXPECT_EQ(s.note, "MLPerf has no benchmark fmnist; scored by its rules over 3 runs");
}

TEST(MlperfScore, SamplesToConvergeAreTheConvergedRunsOlympicMean) {
  const std::vector<MlperfRun> runs = {{4.0, 40960, 10}, {3.0, 36864, 9}, {5.0, 49152, 12}, {std::nullopt, 61440, 15},
                                       {3.5, 36864, 9}};
  const MlperfScore s = ScoreMlperfRuns("resnet", runs);
  EXPECT_DOUBLE_EQ(*s.time_to_train_minutes, 4.166666666666667);  // (3.5 + 4 + 5) / 3: the fastest dropped
  EXPECT_DOUBLE_EQ(*s.samples_to_converge, 38912);  // (36864 + 40960) / 2, of 36864, 36864, 40960, 49152
  EXPECT_DOUBLE_EQ(*s.epochs_to_converge, 9.5);     // (9 + 10) / 2
}

}  // namespace
}  // namespace ergobench
