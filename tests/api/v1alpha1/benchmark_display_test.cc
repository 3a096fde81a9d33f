#include "api/v1alpha1/benchmark_display.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

Benchmark RunningTask1a() {
  Benchmark b;
  b.spec.task = "1a";
  b.spec.max_epochs = 164;
  b.status.phase = "Running";
  return b;
}

TEST(BenchmarkDisplayTest, ProgressWhileRunningSaysHowFarAndHowLongAndFromWhat) {
  Benchmark b = RunningTask1a();
  EXPECT_EQ(DisplayProgress(b), "starting") << "no read of rank 0 yet";
  b.status.progress = Progress{};
  Progress& p = *b.status.progress;
  p.epoch = 3;
  p.max_epochs = 164;
  p.metric = "accuracy";
  p.value = 0.7134;
  p.goal = 0.8;
  p.percent = 1.5243;
  p.seconds_left = 460;
  p.estimated_from = "work";
  EXPECT_EQ(DisplayProgress(b), "1.52% · epoch 3/164 · accuracy 0.713→0.8 · ≤7m40s left");
  p.estimated_from = "goal";
  p.seconds_left = 130;
  EXPECT_EQ(DisplayProgress(b), "1.52% · epoch 3/164 · accuracy 0.713→0.8 · ~2m10s to goal");
  b.spec.repeats = 3;
  b.status.repeats.resize(1);
  EXPECT_EQ(DisplayProgress(b), "repeat 2/3 · 1.52% · epoch 3/164 · accuracy 0.713→0.8 · ~2m10s to goal");
  b.status.phase = "Failed";
  EXPECT_EQ(DisplayProgress(b), "1.52% · epoch 3/164 · accuracy 0.713→0.8") << "where it stopped, no time left";
  b.status.phase = "Pending";
  b.status.progress.reset();
  EXPECT_EQ(DisplayProgress(b), "");
}

TEST(BenchmarkDisplayTest, ProgressOfASucceededRunSaysWhetherItReachedTheGoal) {
  Benchmark b = RunningTask1a();
  b.status.phase = "Succeeded";
  b.status.results = BenchmarkResults{};
  b.status.results->figures.epochs = 12;
  b.status.results->figures.goal_reached = true;
  EXPECT_EQ(DisplayProgress(b), "done · epoch 12/164 · goal reached");
  b.status.results->figures.goal_reached = false;
  EXPECT_EQ(DisplayProgress(b), "done · epoch 12/164");
}

// The figures: kubectl printed THROUGHPUT 13762.572174773217 and COST 0.0018879781754666668.
TEST(BenchmarkDisplayTest, ResultsInShortStringsWithUnits) {
  Benchmark b = RunningTask1a();
  b.status.phase = "Succeeded";
  BenchmarkResults& r = b.status.results.emplace();
  r.figures.samples_per_second = 13762.572174773217;
  r.figures.goal_reached = true;
  r.figures.time_to_accuracy_seconds = 4.91;
  r.figures.energy_joules = 35210;
  r.cost_usd = 0.0018879781754666668;
  r.currency = "EUR";
  const BenchmarkDisplay display = DisplayOf(b);
  EXPECT_EQ(display.throughput, "13.8k samples/s");
  EXPECT_EQ(display.time_to_accuracy, "4.9 s");
  EXPECT_EQ(display.energy, "35.2 kJ");
  EXPECT_EQ(display.cost, "0.00189 EUR");
  r.figures.goal_reached = false;
  EXPECT_EQ(DisplayOf(b).time_to_accuracy, "") << "a goal missed has no time to it";
}

TEST(BenchmarkDisplayTest, EachTaskShowsItsHeadlineRate) {
  Benchmark b = RunningTask1a();
  BenchmarkResults& r = b.status.results.emplace();
  r.figures.samples_per_second = 512;
  r.figures.language_model.emplace().tokens_per_second = 262144;
  EXPECT_EQ(DisplayOf(b).throughput, "262k tokens/s");
  r.figures.allreduce.emplace().peak_bus_bandwidth_bytes_per_second = 2.345e9;
  EXPECT_EQ(DisplayOf(b).throughput, "2.35 GB/s") << "0a: its peak bus bandwidth";
  EXPECT_EQ(DisplayOf(Benchmark{}).throughput, "") << "no results, no figure";
}

}  // namespace
}  // namespace ergobench
