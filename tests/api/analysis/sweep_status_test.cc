#include "api/analysis/sweep_status.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

SweepPoint PointOf(int64_t index, int64_t workers, const std::string& system = "") {
  SweepPoint p;
  p.index = index;
  p.parameters = {workers, "gloo", system, {{"batchSize", 32}}, std::nullopt};
  p.benchmark.metadata.name = "s-" + std::to_string(index);
  return p;
}

Benchmark Succeeded(double samples_per_second, std::optional<double> tta) {
  Benchmark b;
  b.status.phase = "Succeeded";
  BenchmarkResults r;
  r.figures.samples_per_second = samples_per_second;
  r.figures.run_seconds = 30;
  if (tta) r.figures.goal_reached = true, r.figures.time_to_accuracy_seconds = tta;
  b.status.results = r;
  return b;
}

TEST(SweepStatus, SpeedupAndEfficiencyAreAgainstTheSeriesPointOfFewestWorkers) {
  // Run in reversed order: the k=1 point is listed first but ran last.
  const std::vector<SweepPoint> points = {PointOf(2, 4), PointOf(1, 2), PointOf(0, 1), PointOf(3, 1, "other")};
  std::map<std::string, Benchmark> children = {
      {"s-0", Succeeded(100, std::nullopt)}, {"s-1", Succeeded(180, std::nullopt)},
      {"s-2", Succeeded(300, std::nullopt)}, {"s-3", Succeeded(50, std::nullopt)}};
  const std::vector<SweepPointStatus> status = AggregatePoints(points, children);
  ASSERT_EQ(status.size(), 4u);
  EXPECT_EQ(status[0].benchmark, "s-0") << "points come in index order";
  EXPECT_DOUBLE_EQ(*status[0].speedup, 1.0);
  EXPECT_DOUBLE_EQ(*status[1].speedup, 1.8);
  EXPECT_DOUBLE_EQ(*status[1].efficiency, 0.9);
  EXPECT_DOUBLE_EQ(*status[2].speedup, 3.0);
  EXPECT_DOUBLE_EQ(*status[2].efficiency, 0.75);
  EXPECT_EQ(status[2].baseline, "s-0");
  EXPECT_DOUBLE_EQ(*status[3].speedup, 1.0) << "another system is its own series";
  EXPECT_EQ(status[3].baseline, "s-3");
  const Summary& one = status[1].figures.at("samplesPerSecond");
  EXPECT_EQ(one.n, 1);
  EXPECT_EQ(one.median, 180);
  EXPECT_EQ(one.min, 180);
  EXPECT_EQ(one.max, 180);
  EXPECT_EQ(status[1].figures.at("runSeconds").median, 30);
}

TEST(SweepStatus, TimeToAccuracyDecidesTheSpeedupWhenBothReachedTheGoal) {
  const std::vector<SweepPoint> points = {PointOf(0, 1), PointOf(1, 2)};
  std::map<std::string, Benchmark> children = {{"s-0", Succeeded(100, 60.0)}, {"s-1", Succeeded(150, 40.0)}};
  const std::vector<SweepPointStatus> status = AggregatePoints(points, children);
  EXPECT_DOUBLE_EQ(*status[1].speedup, 1.5);
  EXPECT_DOUBLE_EQ(*status[1].efficiency, 0.75);
  BenchmarkSweepStatus sweep;
  TallyPoints(status, BenchmarkSweepSpec(), &sweep);
  EXPECT_EQ(sweep.best, "s-1 (40 s to accuracy)");
}

TEST(SweepStatus, RepeatsGiveTheirStatisticsAndAFailedPointItsReason) {
  const std::vector<SweepPoint> points = {PointOf(0, 1), PointOf(1, 2), PointOf(2, 4), PointOf(3, 8)};
  Benchmark repeated = Succeeded(110, std::nullopt);
  repeated.status.results->summary["samplesPerSecond"] = Summary{3, 110, 100, 130, 113.33, 15.28, 110, 75.4, 151.3};
  Benchmark failed;
  failed.status.phase = "Failed";
  failed.status.conditions = {{"Failed", "True", "PodFailed", "rank 1 exited with 137", "", 1}};
  Benchmark running;
  running.status.phase = "Running";
  std::map<std::string, Benchmark> children = {{"s-0", repeated}, {"s-1", failed}, {"s-2", running}};
  BenchmarkSweepStatus sweep;
  TallyPoints(AggregatePoints(points, children), BenchmarkSweepSpec(), &sweep);
  EXPECT_EQ(sweep.points[0].figures.at("samplesPerSecond").ci95_low, 75.4);
  EXPECT_EQ(sweep.points[0].figures.at("samplesPerSecond").n, 3);
  EXPECT_EQ(sweep.points[1].phase, "Failed");
  EXPECT_EQ(sweep.points[1].message, "PodFailed: rank 1 exited with 137");
  EXPECT_FALSE(sweep.points[1].speedup.has_value());
  EXPECT_EQ(sweep.points[3].phase, "") << "not created yet";
  EXPECT_EQ(sweep.total, 4);
  EXPECT_EQ(sweep.succeeded, 1);
  EXPECT_EQ(sweep.failed, 1);
  EXPECT_EQ(sweep.running, 1);
  EXPECT_EQ(sweep.progress, "2/4");
  EXPECT_EQ(sweep.best, "s-0 (110 samples/s)");
}

TEST(SweepStatus, APointsMlperfScoreStaysOnceItsChildIsGone) {
  const std::vector<SweepPoint> points = {PointOf(0, 2)};
  Benchmark child = Succeeded(100, 600);
  MlperfScore score;
  score.benchmark = "resnet";
  score.required_runs = 5;
  score.runs = 5;
  score.converged = 5;
  score.time_to_train_minutes = 10.5;
  score.complete = true;
  child.status.results->mlperf = score;
  const std::vector<SweepPointStatus> live = AggregatePoints(points, {{"s-0", child}});
  EXPECT_EQ(live[0].mlperf, score);
  const std::vector<SweepPointStatus> recorded = AggregatePoints(points, {}, live);
  EXPECT_EQ(recorded[0].phase, "Succeeded");
  EXPECT_EQ(recorded[0].mlperf, score);
}

// With spec.instances, each point's instances score as MLPerf HPC's weak scaling from the run
// times their results carry, and keep them once their children are gone.
TEST(SweepStatus, InstancesScoreAsModelsPerMinuteFromTheirRunTimes) {
  std::vector<SweepPoint> points = {PointOf(0, 1), PointOf(1, 1)};
  points[0].parameters.instance = 0;
  points[1].parameters.instance = 1;
  std::map<std::string, Benchmark> children = {{"s-0", Succeeded(100, 50.0)}, {"s-1", Succeeded(100, 80.0)}};
  children["s-0"].status.results->figures.run_start_ms = 1764000000000;
  children["s-0"].status.results->figures.run_stop_ms = 1764000050000;
  children["s-1"].status.results->figures.run_start_ms = 1764000010000;
  children["s-1"].status.results->figures.run_stop_ms = 1764000090000;
  BenchmarkSweepSpec spec;
  spec.template_spec = {{"task", "cosmoflow"}};
  spec.instances = 2;
  BenchmarkSweepStatus sweep;
  TallyPoints(AggregatePoints(points, children), spec, &sweep);
  ASSERT_EQ(sweep.weak_scaling.size(), 1u);
  EXPECT_EQ(sweep.weak_scaling[0].converged, 2);
  EXPECT_DOUBLE_EQ(*sweep.weak_scaling[0].time_to_train_all_minutes, 1.5) << "0 s to 90 s";
  EXPECT_DOUBLE_EQ(*sweep.weak_scaling[0].models_per_minute, 2 / 1.5);
  EXPECT_EQ(sweep.weak_scaling[0].required_instances, 10) << "MLPerf HPC's count for cosmoflow";

  BenchmarkSweepStatus later;
  TallyPoints(AggregatePoints(points, {}, sweep.points), spec, &later);
  EXPECT_EQ(later.points[1].run_stop_ms, 1764000090000) << "recorded, once the child is gone";
  EXPECT_EQ(later.weak_scaling, sweep.weak_scaling);
}

}  // namespace
}  // namespace ergobench
