#include "operator/controller/benchmark/progress.h"

#include <gtest/gtest.h>

namespace ergobench::controller {
namespace {

const char kExposition[] = R"(# HELP ergobench_epoch Current training epoch (1-based).
# TYPE ergobench_epoch gauge
ergobench_epoch{backend="gloo",benchmark="b",rank="0",task="fmnist",world_size="2"} 3
# TYPE ergobench_epochs_planned gauge
ergobench_epochs_planned 9
ergobench_eval_accuracy_ratio{benchmark="b"} 0.8125
ergobench_step_duration_seconds_bucket{le="0.1"} 100
ergobench_step_duration_seconds_count{benchmark="b"} 651
ergobench_step_duration_seconds_sum{benchmark="b"} 33.2
)";

TEST(Progress, FindsSamplesByExactName) {
  EXPECT_EQ(FindSample(kExposition, "ergobench_epoch"), 3);
  EXPECT_EQ(FindSample(kExposition, "ergobench_epochs_planned"), 9);
  EXPECT_EQ(FindSample(kExposition, "ergobench_step_duration_seconds_count"), 651);
  EXPECT_EQ(FindSample(kExposition, "ergobench_missing"), std::nullopt);
  EXPECT_EQ(FindSample("x NaN\n", "x"), std::nullopt);
}

TEST(Progress, EpochStepAndAccuracy) {
  auto progress = ParseProgress(kExposition, "accuracy");
  ASSERT_TRUE(progress.has_value());
  EXPECT_EQ(progress->epoch, 3);
  EXPECT_EQ(progress->step, 651);
  EXPECT_EQ(progress->metric, "accuracy");
  EXPECT_DOUBLE_EQ(*progress->value, 0.8125);
}

TEST(Progress, ALanguageModelsLoss) {
  auto progress = ParseProgress("ergobench_epoch 1\nergobench_eval_accuracy_ratio 0\nergobench_eval_loss 3.25\n", "loss");
  ASSERT_TRUE(progress.has_value());
  EXPECT_EQ(progress->metric, "loss");
  EXPECT_DOUBLE_EQ(*progress->value, 3.25);
}

// A pod can serve any number; converting one past int64's range to an integer was undefined.
TEST(Progress, ImplausibleCountsAreIgnored) {
  EXPECT_FALSE(ParseProgress("ergobench_epoch 1e300\n", "accuracy"));
  EXPECT_FALSE(ParseProgress("ergobench_epoch -3\n", "accuracy"));
  const auto progress = ParseProgress("ergobench_epoch 2\nergobench_step_duration_seconds_count 9.3e18\n", "accuracy");
  ASSERT_TRUE(progress);
  EXPECT_EQ(progress->epoch, 2);
  EXPECT_FALSE(progress->step) << *progress->step;
}

TEST(Progress, NothingBeforeTheFirstEpochAndNoFalseZero) {
  EXPECT_FALSE(ParseProgress("ergobench_samples_total 0\n", "accuracy").has_value());
  auto progress = ParseProgress("ergobench_epoch 1\nergobench_eval_accuracy_ratio 0\n", "accuracy");
  ASSERT_TRUE(progress.has_value());
  EXPECT_FALSE(progress->value.has_value());
}

// The runner's gauge, as RunnerMetrics renders it, is what tells the poller to take the files.
TEST(Progress, ArtifactsOfferedOnceTheGaugeIsOne) {
  EXPECT_FALSE(ParseRankZeroState("ergobench_epoch 2\n", "").artifacts_offered);
  EXPECT_FALSE(ParseRankZeroState("ergobench_artifacts_offered{rank=\"0\"} 0\n", "").artifacts_offered);
  const RankZeroState state = ParseRankZeroState(
      "ergobench_epoch 2\nergobench_artifacts_offered{benchmark=\"b\",rank=\"0\"} 1\n", "");
  EXPECT_TRUE(state.artifacts_offered);
  EXPECT_EQ(state.progress->epoch, 2);
}

}  // namespace
}  // namespace ergobench::controller
