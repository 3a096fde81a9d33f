#include "operator/operator_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ergobench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Benchmark Finished() {
  Benchmark b;
  b.metadata.name = "fmnist-k2";
  b.metadata.namespace_name = "bench";
  b.spec.task = "fmnist";
  b.spec.backend = "gloo";
  b.spec.workers = 2;
  BenchmarkResults results;
  results.figures.time_to_accuracy_seconds = 44.5;
  results.figures.samples_per_second = 1439.5;
  results.figures.energy_joules = 900;
  results.figures.energy_to_accuracy_joules = 720;
  results.cost_usd = 0.0052;
  b.status.results = results;
  return b;
}

constexpr char kLabels[] = R"({backend="gloo",benchmark="fmnist-k2",namespace="bench",task="fmnist",workers="2"})";

TEST(OperatorMetricsTest, FinishedBenchmarkExportsItsResultsWithItsLabels) {
  OperatorMetrics metrics;
  metrics.RecordFinished(Finished());
  const std::string text = metrics.Render();
  const std::string labels = kLabels;
  EXPECT_THAT(text, HasSubstr("ergobench_benchmark_time_to_accuracy_seconds" + labels + " 44.5\n"));
  EXPECT_THAT(text, HasSubstr("ergobench_benchmark_samples_per_second" + labels + " 1439.5\n"));
  EXPECT_THAT(text, HasSubstr("ergobench_benchmark_workers" + labels + " 2\n"));
  EXPECT_THAT(text, HasSubstr("ergobench_benchmark_energy_joules" + labels + " 900\n"));
  EXPECT_THAT(text, HasSubstr("ergobench_benchmark_energy_to_accuracy_joules" + labels + " 720\n"));
  EXPECT_THAT(text, HasSubstr("ergobench_benchmark_cost_usd" + labels + " 0.0052\n"));
  // No price for reaching the goal: no sample, rather than a zero that reads as free.
  EXPECT_THAT(text, Not(HasSubstr("ergobench_benchmark_cost_to_accuracy_usd{")));
}

TEST(OperatorMetricsTest, BenchmarkWithoutResultsExportsNothing) {
  OperatorMetrics metrics;
  Benchmark b = Finished();
  b.status.results.reset();
  metrics.RecordFinished(b);
  EXPECT_THAT(metrics.Render(), Not(HasSubstr("fmnist-k2")));
}

TEST(OperatorMetricsTest, EveryReconcileResultStartsAtZero) {
  OperatorMetrics metrics;
  metrics.ObserveReconcile("success", 0.002);
  const std::string text = metrics.Render();
  EXPECT_THAT(text, HasSubstr("ergobench_operator_reconcile_total{result=\"success\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("ergobench_operator_reconcile_total{result=\"error\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("ergobench_operator_reconcile_total{result=\"requeue_after\"} 0\n"));
}

TEST(OperatorMetricsTest, PhaseCountsListEveryPhase) {
  OperatorMetrics metrics;
  metrics.SetPhaseCounts({{"Running", 3}});
  const std::string text = metrics.Render();
  EXPECT_THAT(text, HasSubstr("ergobench_operator_benchmarks{phase=\"Running\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("ergobench_operator_benchmarks{phase=\"Failed\"} 0\n"));
}

TEST(OperatorMetricsTest, ApiRequestCounterAddsOnlyWhatIsNew) {
  OperatorMetrics metrics;
  metrics.SetApiRequests({{"get", 5}});
  metrics.SetApiRequests({{"get", 7}});
  EXPECT_THAT(metrics.Render(), HasSubstr("ergobench_operator_api_requests_total{verb=\"get\"} 7\n"));
}

}  // namespace
}  // namespace ergobench
