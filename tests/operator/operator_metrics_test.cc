#include "operator/operator_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "api/analysis/aggregate.h"
#include "api/analysis/regression.h"
#include "api/pricing/cost.h"
#include "api/pricing/price_catalog.h"
#include "api/v1alpha1/defaults.h"
#include "api/v1alpha1/system.h"

namespace ergobench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

RankResult Rank(int64_t rank, double samples_per_second, double time_to_accuracy) {
  RankResult r;
  r.rank = rank;
  r.world_size = 2;
  r.status = kRankSucceeded;
  r.figures.run_seconds = 36;
  r.figures.samples_per_second = samples_per_second;
  r.figures.goal_reached = true;
  r.figures.time_to_accuracy_seconds = time_to_accuracy;
  r.figures.energy_joules = 450;
  r.figures.energy_to_accuracy_joules = 360;
  return r;
}

// A finished fmnist k=2 Benchmark whose results come the way the operator's do: two ranks'
// results folded by AggregateRankResults and priced by PriceResults at $0.20 per worker-hour.
Benchmark Finished() {
  Benchmark b;
  b.metadata.name = "fmnist-k2";
  b.metadata.namespace_name = "bench";
  b.spec.task = "fmnist";
  b.spec.backend = "gloo";
  b.spec.workers = 2;
  b.spec.pricing = Pricing{"USD", 0.20, std::nullopt, std::nullopt, "", ""};
  RunOutcome outcome = AggregateRankResults({Rank(0, 700, 30), Rank(1, 739.5, 29)}, 2);
  PriceResults(b.spec, {}, {&BuiltInPriceCatalog(), std::chrono::system_clock::now()}, &outcome.results);
  b.status.results = outcome.results;
  return b;
}

constexpr char kLabels[] = R"({backend="gloo",benchmark="fmnist-k2",namespace="bench",task="fmnist",workers="2"})";

// The value of the sample `name` + kLabels in a text exposition; NaN when there is none.
double Sample(const std::string& text, const std::string& name) {
  const std::string head = name + kLabels + " ";
  const size_t at = text.find(head);
  return at == std::string::npos ? std::nan("") : std::stod(text.substr(at + head.size()));
}

TEST(OperatorMetricsTest, FinishedBenchmarkExportsItsFoldedResults) {
  OperatorMetrics metrics({"benchmark"});
  metrics.RecordFinished(Finished());
  const std::string text = metrics.Render();
  // Worked out by hand from the two ranks above.
  EXPECT_DOUBLE_EQ(Sample(text, "ergobench_benchmark_time_to_accuracy_seconds"), 30);  // the slower rank
  EXPECT_DOUBLE_EQ(Sample(text, "ergobench_benchmark_samples_per_second"), 700 + 739.5);
  EXPECT_DOUBLE_EQ(Sample(text, "ergobench_benchmark_workers"), 2);
  EXPECT_DOUBLE_EQ(Sample(text, "ergobench_benchmark_energy_joules"), 450 + 450);
  EXPECT_DOUBLE_EQ(Sample(text, "ergobench_benchmark_energy_to_accuracy_joules"), 360 + 360);
  EXPECT_THAT(text, Not(HasSubstr("_usd"))) << "the currency is a label, not a name";
}

// A cost is in the currency of the prices it came from: a catalog in EUR gives series labelled
// EUR, beside those of a USD run, under the one name a dashboard sums by currency.
TEST(OperatorMetricsTest, CostsCarryTheirCurrencyAsALabel) {
  OperatorMetrics metrics({"benchmark"});
  metrics.RecordFinished(Finished());
  Benchmark in_euros = Finished();
  in_euros.metadata.name = "fmnist-k2-eu";
  in_euros.spec.pricing->currency = "EUR";
  PriceResults(in_euros.spec, {}, {&BuiltInPriceCatalog(), std::chrono::system_clock::now()}, &*in_euros.status.results);
  metrics.RecordFinished(in_euros);
  const std::string text = metrics.Render();
  const std::string usd = R"({backend="gloo",benchmark="fmnist-k2",currency="USD",namespace="bench",task="fmnist",workers="2"} )";
  const std::string eur = R"({backend="gloo",benchmark="fmnist-k2-eu",currency="EUR",namespace="bench",task="fmnist",workers="2"} )";
  for (const std::string& labels : {usd, eur}) {
    for (const auto& [name, seconds] : {std::pair{"ergobench_benchmark_cost", 36.0},
                                        std::pair{"ergobench_benchmark_cost_to_accuracy", 30.0}}) {
      const size_t at = text.find(name + labels);
      ASSERT_NE(at, std::string::npos) << name << labels << "\n" << text;
      EXPECT_NEAR(std::stod(text.substr(at + std::string(name).size() + labels.size())), 2 * (seconds / 3600) * 0.20,
                  1e-12);
    }
  }
  EXPECT_THAT(text, Not(HasSubstr("ergobench_benchmark_samples_per_second{backend=\"gloo\",benchmark=\"fmnist-k2\","
                                  "currency")))
      << "only costs are in a currency";
}

// The audit's leak: a series per finished Benchmark, never removed. A deleted Benchmark's series
// go; a namesake re-created with another spec replaces its predecessor's, never adds to them.
TEST(OperatorMetricsTest, SeriesOfDeletedBenchmarksGo) {
  OperatorMetrics metrics({"benchmark"});
  Benchmark other = Finished();
  other.metadata.name = "other";
  metrics.RecordFinished(Finished());
  metrics.RecordFinished(other);
  metrics.RetainBenchmarks({"bench/other"});
  EXPECT_THAT(metrics.Render(), Not(HasSubstr("benchmark=\"fmnist-k2\"")));
  EXPECT_THAT(metrics.Render(), HasSubstr("benchmark=\"other\""));

  Benchmark renamed_task = other;
  renamed_task.spec.task = "2a";
  metrics.RecordFinished(renamed_task);
  EXPECT_THAT(metrics.Render(), Not(HasSubstr("task=\"fmnist\"")));
  EXPECT_THAT(metrics.Render(), HasSubstr("task=\"2a\""));
}

// The dashboard compares systems: each series carries the instance type and region it ran on,
// and the carbon to accuracy where the region's grid intensity was known: the node's system
// and grid as the reconciler finds them, at a test intensity of 400 g/kWh.
TEST(OperatorMetricsTest, FinishedSeriesCarryTheirSystemAndCarbon) {
  const StatusOr<PriceCatalog> grid = ParsePriceCatalog(
      "carbonIntensity:\n  - {provider: aws, region: us-east-1, gramsPerKwh: 400, year: 2022, source: test}\n",
      "grid.yaml");
  ASSERT_TRUE(grid.ok()) << grid.status().ToString();
  NodeFacts node;
  node.name = "n1";
  node.provider = "aws";
  node.instance_type = "c5.4xlarge";
  node.region = "us-east-1";
  Benchmark b = Finished();
  b.status.results->system = DescribeSystem({node}, b.status.results->environment);
  PriceResults(b.spec, {{node, 2, true}}, {&*grid, std::chrono::system_clock::now()}, &*b.status.results);
  OperatorMetrics metrics({"benchmark"});
  metrics.RecordFinished(b);
  // 720 J to accuracy (360 J on each rank) is 0.0002 kWh, at 400 g/kWh 0.08 g.
  const std::string text = metrics.Render();
  const std::string series =
      "ergobench_benchmark_carbon_to_accuracy_grams{backend=\"gloo\",benchmark=\"fmnist-k2\","
      "instance_type=\"c5.4xlarge\",namespace=\"bench\",region=\"us-east-1\",task=\"fmnist\",workers=\"2\"} ";
  const size_t at = text.find(series);
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NEAR(std::stod(text.substr(at + series.size())), 720 / 3.6e6 * 400, 1e-12);
  EXPECT_THAT(text, Not(HasSubstr("region=\"\"")));
}

// What the chart's alert fires on: 1 when a figure fell outside its band, 0 when within, and
// no series at all for a Benchmark without a baseline.
TEST(OperatorMetricsTest, ARegressionAgainstTheBaselineIsOneAndNoBaselineNoSeries) {
  OperatorMetrics metrics({"benchmark"});
  Benchmark b = Finished();
  metrics.RecordFinished(b);
  EXPECT_TRUE(std::isnan(Sample(metrics.Render(), "ergobench_benchmark_regressed")));
  BenchmarkResults baseline;
  baseline.figures.samples_per_second = 2000;  // this run's 1439.5 is 28% slower
  JudgeAgainstBaseline(baseline, "Benchmark fmnist-k2-last-week", {}, &*b.status.results);
  metrics.RecordFinished(b);
  EXPECT_EQ(Sample(metrics.Render(), "ergobench_benchmark_regressed"), 1);
  JudgeAgainstBaseline(baseline, "Benchmark fmnist-k2-last-week", {{"samplesPerSecond", 30}}, &*b.status.results);
  metrics.RecordFinished(b);
  EXPECT_EQ(Sample(metrics.Render(), "ergobench_benchmark_regressed"), 0);
}

TEST(OperatorMetricsTest, NoPriceForTheGoalIsNoSampleRatherThanAZeroThatReadsAsFree) {
  OperatorMetrics metrics({"benchmark"});
  Benchmark b = Finished();
  b.status.results->cost_to_accuracy_usd.reset();
  metrics.RecordFinished(b);
  EXPECT_THAT(metrics.Render(), Not(HasSubstr("ergobench_benchmark_cost_to_accuracy{")));
}

TEST(OperatorMetricsTest, BenchmarkWithoutResultsExportsNothing) {
  OperatorMetrics metrics({"benchmark"});
  Benchmark b = Finished();
  b.status.results.reset();
  metrics.RecordFinished(b);
  EXPECT_THAT(metrics.Render(), Not(HasSubstr("fmnist-k2")));
}

// Each controller's reconciles are counted and timed under its name, every result of each
// from the start, so that an error rate reads 0 rather than no data.
TEST(OperatorMetricsTest, EveryControllersReconcileResultsStartAtZero) {
  OperatorMetrics metrics({"benchmark", "sweep", "dataset"});
  metrics.ObserveReconcile("sweep", "success", 0.002);
  metrics.SetQueueDepths({{"benchmark", 3}, {"sweep", 0}, {"dataset", 1}});
  const std::string text = metrics.Render();
  EXPECT_THAT(text, HasSubstr("ergobench_operator_reconcile_total{controller=\"sweep\",result=\"success\"} 1\n"));
  for (const char* controller : {"benchmark", "sweep", "dataset"}) {
    for (const char* result : {"error", "requeue_after"}) {
      EXPECT_THAT(text, HasSubstr(std::string("ergobench_operator_reconcile_total{controller=\"") + controller +
                                  "\",result=\"" + result + "\"} 0\n"));
    }
  }
  EXPECT_THAT(text, HasSubstr("ergobench_operator_reconcile_total{controller=\"benchmark\",result=\"success\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("ergobench_operator_reconcile_duration_seconds_count{controller=\"sweep\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("ergobench_operator_reconcile_duration_seconds_count{controller=\"benchmark\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("ergobench_operator_workqueue_depth{controller=\"benchmark\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("ergobench_operator_workqueue_depth{controller=\"dataset\"} 1\n"));
}

TEST(OperatorMetricsTest, BuildInfoNamesTheVersion) {
  const std::string text = OperatorMetrics({"benchmark"}).Render();
  EXPECT_THAT(text, HasSubstr(std::string("ergobench_build_info{component=\"operator\",version=\"") + ErgobenchVersion() +
                              "\"} 1"));
  EXPECT_STRNE(ErgobenchVersion(), "");
}

TEST(OperatorMetricsTest, PhaseCountsListEveryPhase) {
  OperatorMetrics metrics({"benchmark"});
  metrics.SetPhaseCounts({{"Running", 3}});
  const std::string text = metrics.Render();
  EXPECT_THAT(text, HasSubstr("ergobench_operator_benchmarks{phase=\"Running\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("ergobench_operator_benchmarks{phase=\"Failed\"} 0\n"));
}

TEST(OperatorMetricsTest, ApiRequestCounterAddsOnlyWhatIsNew) {
  OperatorMetrics metrics({"benchmark"});
  metrics.SetApiRequests({{"get", 5}});
  metrics.SetApiRequests({{"get", 7}});
  EXPECT_THAT(metrics.Render(), HasSubstr("ergobench_operator_api_requests_total{verb=\"get\"} 7\n"));
}

}  // namespace
}  // namespace ergobench
