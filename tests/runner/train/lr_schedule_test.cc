#include "runner/train/lr_schedule.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ergobench {
namespace {

TEST(LrScheduleTest, WarmupForOneTwoAndFourWorkers) {
  // k = 1: no warm-up, 0.02 throughout.
  LrSchedule one(0.02, 1);
  EXPECT_DOUBLE_EQ(one.At(0), 0.02);
  EXPECT_DOUBLE_EQ(one.At(10), 0.02);
  // k = 2: 0.02 -> 0.04 over log2(2) = 1 epoch.
  LrSchedule two(0.02, 2);
  EXPECT_DOUBLE_EQ(two.At(0), 0.02);
  EXPECT_DOUBLE_EQ(two.At(0.5), 0.03);
  EXPECT_DOUBLE_EQ(two.At(1), 0.04);
  EXPECT_DOUBLE_EQ(two.At(50), 0.04);
  // k = 4: 0.02 -> 0.08 over 2 epochs.
  LrSchedule four(0.02, 4);
  EXPECT_DOUBLE_EQ(four.warmup_epochs(), 2);
  EXPECT_DOUBLE_EQ(four.At(0), 0.02);
  EXPECT_DOUBLE_EQ(four.At(1), 0.05);
  EXPECT_DOUBLE_EQ(four.At(2), 0.08);
  EXPECT_DOUBLE_EQ(four.At(3), 0.08);
}

TEST(LrScheduleTest, PlateauDividesByTenAfterTwoEpochsWithoutImprovement) {
  LrSchedule s(0.02, 4);
  EXPECT_FALSE(s.OnValidationLoss(1.0));
  EXPECT_FALSE(s.OnValidationLoss(0.9));
  EXPECT_FALSE(s.OnValidationLoss(0.95));  // one bad epoch
  EXPECT_TRUE(s.OnValidationLoss(0.9));    // two: not strictly better than 0.9
  EXPECT_DOUBLE_EQ(s.At(10), 0.008);
  EXPECT_FALSE(s.OnValidationLoss(0.8));   // improvement resets the count
  EXPECT_FALSE(s.OnValidationLoss(0.85));
  EXPECT_TRUE(s.OnValidationLoss(0.81));
  EXPECT_NEAR(s.At(10), 0.0008, 1e-15);
  EXPECT_NEAR(s.At(1), 0.05 * 0.01, 1e-15);  // the plateau also scales a warm-up in progress
}

TEST(WarmupCosineLrTest, RampsThenFollowsHalfACosineToTheFloor) {
  // Warm-up over 4 steps to 6e-4, cosine to 6e-5 at step 104.
  EXPECT_DOUBLE_EQ(WarmupCosineLr(0, 4, 104, 6e-4, 6e-5), 1.5e-4);
  EXPECT_DOUBLE_EQ(WarmupCosineLr(3, 4, 104, 6e-4, 6e-5), 6e-4);
  EXPECT_DOUBLE_EQ(WarmupCosineLr(4, 4, 104, 6e-4, 6e-5), 6e-4);
  EXPECT_NEAR(WarmupCosineLr(54, 4, 104, 6e-4, 6e-5), 3.3e-4, 1e-12);  // halfway: the mean
  EXPECT_NEAR(WarmupCosineLr(79, 4, 104, 6e-4, 6e-5), 6e-5 + 5.4e-4 * 0.5 * (1 + std::cos(M_PI * 0.75)), 1e-12);
  EXPECT_DOUBLE_EQ(WarmupCosineLr(104, 4, 104, 6e-4, 6e-5), 6e-5);
  EXPECT_DOUBLE_EQ(WarmupCosineLr(500, 4, 104, 6e-4, 6e-5), 6e-5);
  EXPECT_DOUBLE_EQ(WarmupCosineLr(0, 0, 10, 1.0, 0.0), 1.0);  // no warm-up
}

TEST(WarmupPolynomialLrTest, RampsFromZeroThenDecaysAsThePowerToZero) {
  // MLPerf ResNet-50 at 8 x 32 images: peak 0.1 x 256/256, 5 warm-up epochs, power 2, 41 epochs.
  EXPECT_DOUBLE_EQ(WarmupPolynomialLr(0.5, 5, 41, 0.1, 2), 0.01);
  EXPECT_DOUBLE_EQ(WarmupPolynomialLr(5, 5, 41, 0.1, 2), 0.1);
  EXPECT_DOUBLE_EQ(WarmupPolynomialLr(23, 5, 41, 0.1, 2), 0.1 * 0.25);  // halfway through the decay
  EXPECT_NEAR(WarmupPolynomialLr(32, 5, 41, 0.1, 2), 0.1 * 0.0625, 1e-15);
  EXPECT_DOUBLE_EQ(WarmupPolynomialLr(41, 5, 41, 0.1, 2), 0.0);
  EXPECT_DOUBLE_EQ(WarmupPolynomialLr(50, 5, 41, 0.1, 2), 0.0);
  EXPECT_DOUBLE_EQ(WarmupPolynomialLr(0.5, 0, 2, 1.0, 1), 0.75);  // no warm-up: linear decay
}

// MLPerf's closed ResNet ends at 1e-4 (its sgd_opt_end_learning_rate): the decay runs from the
// peak down to it, and stays there.
TEST(WarmupPolynomialLrTest, DecaysToTheEndRate) {
  EXPECT_DOUBLE_EQ(WarmupPolynomialLr(5, 5, 41, 0.1, 2, 1e-4), 0.1);
  EXPECT_DOUBLE_EQ(WarmupPolynomialLr(23, 5, 41, 0.1, 2, 1e-4), (0.1 - 1e-4) * 0.25 + 1e-4);
  EXPECT_DOUBLE_EQ(WarmupPolynomialLr(41, 5, 41, 0.1, 2, 1e-4), 1e-4);
  EXPECT_DOUBLE_EQ(WarmupPolynomialLr(60, 5, 41, 0.1, 2, 1e-4), 1e-4);
}

// MLBench 4b: linear warm-up from 0 over 1000 updates to 1.976e-3, then the inverse square root.
TEST(InverseSqrtLrTest, RampsFromZeroThenFallsAsTheInverseSquareRoot) {
  EXPECT_EQ(0.0, InverseSqrtLr(0, 1000, 1.976e-3));
  EXPECT_DOUBLE_EQ(1.976e-3 / 2, InverseSqrtLr(500, 1000, 1.976e-3));
  EXPECT_DOUBLE_EQ(1.976e-3, InverseSqrtLr(1000, 1000, 1.976e-3));
  EXPECT_DOUBLE_EQ(1.976e-3 / 2, InverseSqrtLr(4000, 1000, 1.976e-3));
  EXPECT_DOUBLE_EQ(1.976e-3, InverseSqrtLr(0, 0, 1.976e-3));
}

// MLBench 4a: from 1% of the peak up over 200 updates, halved from the 40% point and every 5%
// after, at most 4 times (here a run of 1000 updates: from 400, every 50).
TEST(StepDecayLrTest, ExponentialWarmupThenHalvedAtMostFourTimes) {
  const StepDecayLr lr{2e-3, 200, 400, 50, 4, 0.5};
  EXPECT_DOUBLE_EQ(2e-5, lr.At(0));
  EXPECT_DOUBLE_EQ(2e-4, lr.At(100));
  EXPECT_DOUBLE_EQ(2e-3, lr.At(200));
  EXPECT_DOUBLE_EQ(2e-3, lr.At(399));
  EXPECT_DOUBLE_EQ(1e-3, lr.At(400));
  EXPECT_DOUBLE_EQ(1e-3, lr.At(449));
  EXPECT_DOUBLE_EQ(5e-4, lr.At(450));
  EXPECT_DOUBLE_EQ(2e-3 / 16, lr.At(550));
  EXPECT_DOUBLE_EQ(2e-3 / 16, lr.At(100000));
  // A warm-up longer than the run before the decay is cut there, as MLBench cuts it; the
  // decay's first halving comes an update later.
  const StepDecayLr short_run{2e-3, 200, 100, 5, 4, 0.5};
  EXPECT_DOUBLE_EQ(2e-3, short_run.At(100));
  EXPECT_DOUBLE_EQ(1e-3, short_run.At(101));
  EXPECT_DOUBLE_EQ(2e-3 * std::pow(0.01, 0.5), short_run.At(50));
}

// CosmoFlow's reference at a global batch of 256 (base 64): 0.001 rising to 0.004 over 4 epochs
// a quarter of the way each, then 0.004 x 0.25 from epoch 32 and 0.004 x 0.125 from epoch 64.
TEST(WarmupEpochDecayLrTest, RisesFromTheBaseThenStepsDownAtEachBoundary) {
  const std::vector<EpochDecay> decays = {{32, 0.25}, {64, 0.125}};
  EXPECT_DOUBLE_EQ(WarmupEpochDecayLr(0, 0.001, 0.004, 4, decays), 0.001);
  EXPECT_DOUBLE_EQ(WarmupEpochDecayLr(1, 0.001, 0.004, 4, decays), 0.00175);
  EXPECT_DOUBLE_EQ(WarmupEpochDecayLr(3, 0.001, 0.004, 4, decays), 0.00325);
  EXPECT_DOUBLE_EQ(WarmupEpochDecayLr(4, 0.001, 0.004, 4, decays), 0.004);
  EXPECT_DOUBLE_EQ(WarmupEpochDecayLr(31, 0.001, 0.004, 4, decays), 0.004);
  EXPECT_DOUBLE_EQ(WarmupEpochDecayLr(32, 0.001, 0.004, 4, decays), 0.001);
  EXPECT_DOUBLE_EQ(WarmupEpochDecayLr(64, 0.001, 0.004, 4, decays), 0.0005);
  EXPECT_DOUBLE_EQ(WarmupEpochDecayLr(0, 0.001, 0.004, 0, {}), 0.004) << "no warm-up";
}

}  // namespace
}  // namespace ergobench
