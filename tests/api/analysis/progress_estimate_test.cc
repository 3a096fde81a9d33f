#include "api/analysis/progress_estimate.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

TEST(DoneFractionTest, EpochsUpToTheMostAndTheShareOfThisOne) {
  EXPECT_DOUBLE_EQ(*DoneFraction(10, 3, 50, 100), 0.25);  // 2.5 of 10 epochs
  EXPECT_DOUBLE_EQ(*DoneFraction(std::nullopt, std::nullopt, 30, 120), 0.25);  // gpt's steps, 0a's sizes
  EXPECT_DOUBLE_EQ(*DoneFraction(std::nullopt, 3, 30, 120), 0.25);
  EXPECT_DOUBLE_EQ(*DoneFraction(2, 5, 10, 10), 1.0) << "past the most work is all of it";
  EXPECT_FALSE(DoneFraction(10, 1, 0, 0)) << "no work seen yet";
}

TEST(ProgressEstimatorTest, TheWorkLeftAtItsRateSoFar) {
  ProgressEstimator estimator(std::nullopt);
  EXPECT_FALSE(estimator.Observe(20, 0.1, std::nullopt).seconds_left) << "one observation is no rate";
  EXPECT_FALSE(estimator.Observe(20.5, 0.2, std::nullopt).seconds_left) << "too soon to say";
  EXPECT_FALSE(estimator.Observe(60, 0.1, std::nullopt).seconds_left) << "nothing moved";
  const ProgressEstimate estimate = estimator.Observe(60, 0.3, std::nullopt);  // 0.2 in 40 s: 0.7 takes 140 s
  EXPECT_DOUBLE_EQ(*estimate.done_fraction, 0.3);
  EXPECT_DOUBLE_EQ(*estimate.seconds_left, 140);
  EXPECT_EQ(estimate.estimated_from, kEstimatedFromWork);
  EXPECT_DOUBLE_EQ(*estimator.Observe(80, 1.0, std::nullopt).seconds_left, 0);
}

TEST(ProgressEstimatorTest, TheGoalWhereItsTrendReachesTheTargetSooner) {
  ProgressEstimator estimator(GoalTrend{0.80, true});
  estimator.Observe(0, 0.0, std::nullopt);
  estimator.Observe(100, 0.1, 0.50);  // the first evaluation: no trend yet
  ProgressEstimate estimate = estimator.Observe(110, 0.11, 0.50);
  EXPECT_DOUBLE_EQ(*estimate.seconds_left, 890) << "the work's: 0.89 left at 0.11 per 110 s";
  EXPECT_EQ(estimate.estimated_from, kEstimatedFromWork);
  // 0.50 -> 0.70 from 100 s to 200 s: 0.10 more takes 50 s, so 0.80 at 250 s; asked at 210 s.
  estimator.Observe(200, 0.2, 0.70);
  estimate = estimator.Observe(210, 0.21, 0.70);
  EXPECT_NEAR(*estimate.seconds_left, 40, 1e-9);
  EXPECT_EQ(estimate.estimated_from, kEstimatedFromGoal);
}

TEST(ProgressEstimatorTest, ALossGoalFallsAndATrendAwayFromTheGoalSaysNothing) {
  ProgressEstimator loss(GoalTrend{2.0, false});
  loss.Observe(0, 0.0, 4.0);
  EXPECT_DOUBLE_EQ(*loss.Observe(10, 0.01, 3.0).seconds_left, 10) << "4 -> 3 in 10 s: 2 at 20 s";
  ProgressEstimator worse(GoalTrend{0.8, true});
  worse.Observe(0, 0.0, 0.6);
  const ProgressEstimate estimate = worse.Observe(10, 0.5, 0.5);
  EXPECT_DOUBLE_EQ(*estimate.seconds_left, 10) << "the goal's trend points away: the work's estimate";
  EXPECT_EQ(estimate.estimated_from, kEstimatedFromWork);
}

TEST(ProgressEstimatorTest, AGoalAlreadyPassedIsNoEstimateOfTheRest) {
  ProgressEstimator estimator(GoalTrend{0.5, true});
  estimator.Observe(0, std::nullopt, 0.4);
  const ProgressEstimate estimate = estimator.Observe(10, std::nullopt, 0.6);
  EXPECT_FALSE(estimate.seconds_left);
  EXPECT_EQ(estimate.estimated_from, "");
}

}  // namespace
}  // namespace ergobench
