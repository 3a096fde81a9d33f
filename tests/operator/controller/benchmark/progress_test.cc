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

TEST(Progress, ATranslationsBleu) {
  auto progress = ParseProgress("ergobench_epoch 4\nergobench_eval_accuracy_ratio 0\nergobench_eval_bleu 37.5\n", "bleu");
  ASSERT_TRUE(progress.has_value());
  EXPECT_EQ(progress->metric, "bleu");
  ASSERT_TRUE(progress->value.has_value());
  EXPECT_DOUBLE_EQ(*progress->value, 37.5);
}

// CosmoFlow's goal is a mean absolute error, which the status shows as it goes down.
TEST(Progress, ARegressionsMeanAbsoluteError) {
  auto progress = ParseProgress("ergobench_epoch 3\nergobench_eval_accuracy_ratio 0\nergobench_eval_mean_absolute_error 0.37\n", "mae");
  ASSERT_TRUE(progress.has_value());
  EXPECT_EQ(progress->metric, "mae");
  ASSERT_TRUE(progress->value.has_value());
  EXPECT_DOUBLE_EQ(*progress->value, 0.37);
}

// A pod can serve any number; converting one past int64's range to an integer was undefined.
// Rank 0's estimate, as the runner exports it (runner_metrics.h): the share done and the time
// left with what it extrapolates.
TEST(Progress, TheRunnersEstimateOfTheShareDoneAndTheTimeLeft) {
  const auto progress = ParseProgress(
      "ergobench_epoch{rank=\"0\"} 3\n"
      "ergobench_progress_ratio{rank=\"0\"} 0.25\n"
      "ergobench_progress_remaining_seconds{benchmark=\"b\",rank=\"0\",basis=\"goal\"} 129.6\n",
      "accuracy");
  ASSERT_TRUE(progress);
  EXPECT_EQ(progress->percent, 25);
  EXPECT_EQ(progress->seconds_left, 130);
  EXPECT_EQ(progress->estimated_from, "goal");
  const auto without = ParseProgress("ergobench_epoch 3\n", "accuracy");
  EXPECT_FALSE(without->percent);
  EXPECT_FALSE(without->seconds_left);
  EXPECT_EQ(without->estimated_from, "");
}

// A pod may serve anything: a share outside 0..1, a time beyond any run or below zero, a basis
// the runner never writes, or one only inside another label's value are all left out.
TEST(Progress, AnImplausibleEstimateIsLeftOut) {
  for (const char* exposition : {
           "ergobench_epoch 1\nergobench_progress_ratio 1.5\nergobench_progress_remaining_seconds{basis=\"work\"} -4\n",
           "ergobench_epoch 1\nergobench_progress_ratio -0.1\nergobench_progress_remaining_seconds{basis=\"work\"} 1e300\n",
           "ergobench_epoch 1\nergobench_progress_remaining_seconds{basis=\"hope\"} 10\n",
           "ergobench_epoch 1\nergobench_progress_remaining_seconds{xbasis=\"work\"} 10\n",
           "ergobench_epoch 1\nergobench_progress_remaining_seconds{basis=\"work} 10\n",
       }) {
    const auto progress = ParseProgress(exposition, "accuracy");
    ASSERT_TRUE(progress) << exposition;
    EXPECT_FALSE(progress->percent) << exposition;
    EXPECT_FALSE(progress->seconds_left) << exposition;
    EXPECT_EQ(progress->estimated_from, "") << exposition;
  }
}

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

// Rank 0's phase counters, as RunnerMetrics renders them: the step time is every phase but
// evaluation (api/analysis/training_phases.h), and the communication part of it.
TEST(Progress, StepTimeTotalsFromThePhaseCounters) {
  const std::string exposition =
      "# TYPE ergobench_phase_seconds_total counter\n"
      "ergobench_phase_seconds_total{benchmark=\"b\",rank=\"0\",phase=\"data\"} 0.5\n"
      "ergobench_phase_seconds_total{benchmark=\"b\",rank=\"0\",phase=\"forward\"} 2\n"
      "ergobench_phase_seconds_total{benchmark=\"b\",rank=\"0\",phase=\"backward\"} 3\n"
      "ergobench_phase_seconds_total{benchmark=\"b\",rank=\"0\",phase=\"optimizer\"} 0.5\n"
      "ergobench_phase_seconds_total{benchmark=\"b\",rank=\"0\",phase=\"communication\"} 2\n"
      "ergobench_phase_seconds_total{benchmark=\"b\",rank=\"0\",phase=\"eval\"} 40\n"
      "ergobench_epoch{rank=\"0\"} 1\n";
  const RankZeroState state = ParseRankZeroState(exposition, "accuracy");
  ASSERT_TRUE(state.totals.has_value());
  EXPECT_DOUBLE_EQ(state.totals->step_seconds, 8);
  EXPECT_DOUBLE_EQ(state.totals->communication_seconds, 2);
  EXPECT_FALSE(ParseRankZeroState("ergobench_epoch 1\n", "").totals.has_value()) << "0a times no phases";
  // Hostile or broken lines are skipped, never read as numbers.
  const auto broken = ParseRankZeroState(
      "ergobench_phase_seconds_total{phase=\"communication\"} nan\n"
      "ergobench_phase_seconds_total{phase=\"communication\"} -1\n"
      "ergobench_phase_seconds_total{phase=\"warp\"} 5\n"
      "ergobench_phase_seconds_total{phase=\"forward} 5\n"
      "ergobench_phase_seconds_total{phase=\"forward\"} 4\n", "");
  ASSERT_TRUE(broken.totals.has_value());
  EXPECT_DOUBLE_EQ(broken.totals->step_seconds, 4);
  EXPECT_DOUBLE_EQ(broken.totals->communication_seconds, 0);
}

// The ratio of the steps between two reads, not since the start: a link slowed mid-run shows
// at once. 3 s of 4 in collectives since the last read is 0.75, whatever came before.
TEST(Progress, TheRecentCommunicationRatioIsThatOfTheStepsBetweenTwoReads) {
  EXPECT_EQ(RecentCommunicationRatio({100, 10}, {104, 13}), 0.75);
  EXPECT_EQ(RecentCommunicationRatio({100, 10}, {100, 10}), std::nullopt) << "no step since";
  EXPECT_EQ(RecentCommunicationRatio({100, 10}, {50, 5}), std::nullopt) << "a counter went back: another process";
  EXPECT_EQ(RecentCommunicationRatio({100, 10}, {101, 12}), std::nullopt) << "more waiting than step time is not a ratio";
}

}  // namespace
}  // namespace ergobench::controller
