#include "runner/train/loss_scaler.h"

#include <cmath>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ergobench {
namespace {

using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// MLBench 4a's settings: 2^10, factor 2, window 128, at most 2^13.
DynamicLossScaler Gnmt() {
  LossScalerOptions options;
  options.max_scale = 8192;
  return *DynamicLossScaler::Create(options);
}

// `count` clean updates (gradient norm 1); whether each was to be applied.
void Clean(DynamicLossScaler& scaler, int count) {
  for (int i = 0; i < count; ++i) ASSERT_TRUE(*scaler.Update(1.0));
}

TEST(DynamicLossScalerTest, GrowsAfterEachWindowOfCleanUpdatesUpToTheMaximum) {
  DynamicLossScaler scaler = Gnmt();
  Clean(scaler, 127);
  EXPECT_EQ(1024, scaler.scale());
  Clean(scaler, 1);  // the 128th
  EXPECT_EQ(2048, scaler.scale());
  Clean(scaler, 128);
  EXPECT_EQ(4096, scaler.scale());
  Clean(scaler, 128);
  EXPECT_EQ(8192, scaler.scale());
  Clean(scaler, 128);
  EXPECT_EQ(8192, scaler.scale());  // clamped
  EXPECT_EQ(512, scaler.attempts());
  EXPECT_EQ(0, scaler.skipped());
}

TEST(DynamicLossScalerTest, AnInfOrNanGradientSkipsTheUpdateAndDividesTheScale) {
  DynamicLossScaler scaler = Gnmt();
  Clean(scaler, 5);
  EXPECT_FALSE(*scaler.Update(kInf));
  EXPECT_EQ(512, scaler.scale());
  EXPECT_FALSE(*scaler.Update(kNaN));
  EXPECT_EQ(256, scaler.scale());
  EXPECT_FALSE(*scaler.Update(-kInf));
  EXPECT_EQ(128, scaler.scale());
  EXPECT_EQ(8, scaler.attempts());
  EXPECT_EQ(3, scaler.skipped());  // 5 steps taken, not 8
}

TEST(DynamicLossScalerTest, TheWindowCountsFromTheLastOverflow) {
  DynamicLossScaler scaler = Gnmt();
  Clean(scaler, 100);
  EXPECT_FALSE(*scaler.Update(kInf));
  EXPECT_EQ(512, scaler.scale());
  Clean(scaler, 127);  // 227 clean in all, but only 127 since the overflow
  EXPECT_EQ(512, scaler.scale());
  Clean(scaler, 1);
  EXPECT_EQ(1024, scaler.scale());
}

TEST(DynamicLossScalerTest, WithoutAMaximumItKeepsGrowing) {  // 4b's: 2^7, window 2000, no maximum
  LossScalerOptions options;
  options.initial_scale = 128;
  options.window = 2000;
  DynamicLossScaler scaler = *DynamicLossScaler::Create(options);
  Clean(scaler, 2000 * 10);
  EXPECT_EQ(128 * 1024, scaler.scale());
}

TEST(DynamicLossScalerTest, FailsOnceOverflowsTookTheScaleToTheMinimum) {
  LossScalerOptions options;
  options.initial_scale = 1;
  options.min_scale = 0.25;
  DynamicLossScaler scaler = *DynamicLossScaler::Create(options);
  EXPECT_FALSE(*scaler.Update(kInf));
  auto last = scaler.Update(kNaN);
  ASSERT_FALSE(last.ok());
  EXPECT_THAT(last.status().message(), HasSubstr("overflowed at every scale down to 0.25 (update 2)"));
}

TEST(DynamicLossScalerTest, RefusesOptionsThatNeverSettle) {
  const auto refused = [](auto change) {
    LossScalerOptions options;
    change(options);
    auto scaler = DynamicLossScaler::Create(options);
    return scaler.ok() ? std::string() : scaler.status().message();
  };
  EXPECT_THAT(refused([](auto& o) { o.initial_scale = 0; }), HasSubstr("initial scale must be a number above 0"));
  EXPECT_THAT(refused([](auto& o) { o.initial_scale = kNaN; }), HasSubstr("initial scale"));
  EXPECT_THAT(refused([](auto& o) { o.factor = 1; }), HasSubstr("factor must be a number above 1"));
  EXPECT_THAT(refused([](auto& o) { o.window = 0; }), HasSubstr("window must be at least 1 update"));
  EXPECT_THAT(refused([](auto& o) { o.max_scale = 512; }), HasSubstr("at least the initial scale (1024)"));
  EXPECT_THAT(refused([](auto& o) { o.min_scale = 2048; }), HasSubstr("minimum scale"));
  EXPECT_EQ("", refused([](auto&) {}));
}

}  // namespace
}  // namespace ergobench
