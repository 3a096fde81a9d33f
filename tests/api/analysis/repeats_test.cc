#include "api/analysis/repeats.h"

#include <gtest/gtest.h>

#include <cmath>

#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/defaults.h"

namespace ergobench {
namespace {

BenchmarkResults Measured(double samples_per_second, std::optional<double> tta, double energy_to_accuracy) {
  BenchmarkResults r;
  r.figures.samples_per_second = samples_per_second;
  r.figures.time_to_accuracy_seconds = tta;
  r.figures.run_seconds = 60;
  r.figures.energy_to_accuracy_joules = energy_to_accuracy;
  return r;
}

BenchmarkSpec SpecWithSeed(int64_t seed) {
  BenchmarkSpec spec;
  spec.hyperparameters = {{"seed", seed}, {"batchSize", 32}};
  return spec;
}

// `status` encoded in a Benchmark and decoded back, with no error on the way.
Benchmark ThroughTheResource(const BenchmarkStatus& status) {
  Benchmark b;
  b.status = status;
  FieldErrors errors, status_errors;
  Benchmark decoded = DecodeBenchmark(EncodeBenchmark(b), &errors, &status_errors);
  EXPECT_TRUE(status_errors.empty()) << status_errors.ToString();
  return decoded;
}

TEST(Repeats, EachRepeatTrainsWithItsOwnSeedAndRepeatZeroWithTheRecipes) {
  EXPECT_EQ(DerivedSeed(42, 0), 42);
  EXPECT_EQ(DerivedSeed(42, 2), 44);
  EXPECT_EQ(DerivedSeed(2147483647, 1), 0);  // stays within the hyperparameter's range
  BenchmarkSpec spec = SpecWithSeed(42);
  ApplyRepeatSeed(&spec, 0);
  EXPECT_EQ(spec.hyperparameters["seed"], 42);
  ApplyRepeatSeed(&spec, 3);
  EXPECT_EQ(spec.hyperparameters["seed"], 45);
  EXPECT_EQ(spec.hyperparameters["batchSize"], 32);
  BenchmarkSpec seedless;
  seedless.hyperparameters = {{"maxElements", 1024}};  // task 0a has no seed
  ApplyRepeatSeed(&seedless, 2);
  EXPECT_EQ(seedless.hyperparameters, nlohmann::json({{"maxElements", 1024}}));
}

TEST(Repeats, ARepeatKeepsItsHeadlineFiguresAndSeed) {
  const RepeatResult r = RepeatOf(1, SpecWithSeed(7), Measured(100, 30, 900));
  EXPECT_EQ(r.repeat, 1);
  EXPECT_EQ(r.seed, 8);
  EXPECT_EQ(r.figures, (std::map<std::string, double>{{"samplesPerSecond", 100},
                                                        {"timeToAccuracySeconds", 30},
                                                        {"runSeconds", 60},
                                                        {"energyToAccuracyJoules", 900}}));
}

TEST(Repeats, FoldingGivesTheMediansAndTheirStatistics) {
  const BenchmarkSpec spec = SpecWithSeed(42);
  std::vector<RepeatResult> repeats = {RepeatOf(2, spec, Measured(110, 31, 3600)), RepeatOf(0, spec, Measured(100, 29, 7200)),
                                       RepeatOf(1, spec, Measured(90, std::nullopt, 0))};
  repeats[2].figures.erase("energyToAccuracyJoules");  // the goal was not reached in repeat 1
  BenchmarkResults last = Measured(110, 31, 3600);
  last.environment = {{"host", "last"}};
  const BenchmarkResults folded = FoldRepeats(spec, last, repeats);

  EXPECT_DOUBLE_EQ(*folded.figures.samples_per_second, 100);      // median of 90, 100, 110
  EXPECT_DOUBLE_EQ(*folded.figures.time_to_accuracy_seconds, 30);  // median of 29, 31
  EXPECT_DOUBLE_EQ(*folded.figures.energy_to_accuracy_joules, 5400);
  EXPECT_DOUBLE_EQ(*folded.energy_to_accuracy_wh, 1.5);  // restates the median, not the last repeat's 1 Wh
  EXPECT_EQ(folded.environment["host"], "last");
  const Summary& sps = folded.summary.at("samplesPerSecond");
  EXPECT_EQ(sps.n, 3);
  EXPECT_DOUBLE_EQ(sps.min, 90);
  EXPECT_DOUBLE_EQ(sps.max, 110);
  EXPECT_NEAR(*sps.ci95_low, 100 - 0.95 / std::sqrt(2 * 0.975 * 0.025) * 10 / std::sqrt(3.0), 1e-9);  // sd 10, t(2) in closed form
  EXPECT_EQ(folded.summary.at("timeToAccuracySeconds").n, 2);
  ASSERT_EQ(folded.repeats.size(), 3u);
  EXPECT_EQ(folded.repeats[0].repeat, 0);  // in repeat order
  EXPECT_EQ(folded.repeats[2].seed, 44);
}

// A run with a goal, as the runner reports it: stopped at the goal (or at maxEpochs without it).
BenchmarkResults Trained(bool reached, double run_seconds, int64_t samples, int64_t epochs) {
  BenchmarkResults r;
  r.figures.goal_reached = reached;
  if (reached) r.figures.time_to_accuracy_seconds = run_seconds - 1;
  r.figures.run_seconds = run_seconds;
  r.figures.samples = samples;
  r.figures.epochs = epochs;
  return r;
}

TEST(Repeats, ARepeatKeepsWhetherItReachedItsGoalAndInHowManySamples) {
  const RepeatResult r = RepeatOf(0, SpecWithSeed(7), Trained(true, 120, 30000, 5));
  EXPECT_EQ(r.goal_reached, true);
  EXPECT_EQ(r.samples, 30000);
  EXPECT_EQ(r.epochs, 5);
  const RepeatResult without = RepeatOf(0, SpecWithSeed(7), Measured(100, 30, 900));
  EXPECT_FALSE(without.goal_reached.has_value());
}

TEST(Repeats, RepeatsWithAGoalAreScoredAsMlperfScoresThem) {
  BenchmarkSpec spec = SpecWithSeed(42);
  spec.task = "resnet50";
  const std::vector<BenchmarkResults> runs = {Trained(true, 600, 50000, 10), Trained(true, 540, 45000, 9),
                                              Trained(false, 900, 80000, 16), Trained(true, 660, 55000, 11),
                                              Trained(true, 480, 40000, 8)};
  std::vector<RepeatResult> repeats;
  for (size_t i = 0; i < runs.size(); ++i) repeats.push_back(RepeatOf(static_cast<int64_t>(i), spec, runs[i]));
  const BenchmarkResults folded = FoldRepeats(spec, runs.back(), repeats);
  ASSERT_TRUE(folded.mlperf.has_value());
  const MlperfScore& m = *folded.mlperf;
  EXPECT_EQ(m.benchmark, "resnet");
  EXPECT_EQ(m.runs, 5);
  EXPECT_EQ(m.converged, 4);
  // Converged 8, 9, 10, 11 minutes; the one that did not converge is the slowest dropped, then
  // the fastest: (9 + 10 + 11) / 3.
  EXPECT_DOUBLE_EQ(*m.time_to_train_minutes, 10);
  EXPECT_DOUBLE_EQ(*m.samples_to_converge, 47500);  // (45000 + 50000) / 2
  EXPECT_DOUBLE_EQ(*m.epochs_to_converge, 9.5);
  EXPECT_TRUE(m.complete);

  // Through the status and back.
  BenchmarkStatus status;
  status.results = folded;
  const nlohmann::json encoded = EncodeStatus(status);
  EXPECT_EQ(encoded["results"]["mlperf"]["timeToTrainMinutes"], 10);
  EXPECT_EQ(encoded["results"]["repeats"][2]["goalReached"], false);
  EXPECT_EQ(encoded["results"]["repeats"][2]["samples"], 80000);
  const Benchmark decoded = ThroughTheResource(status);
  EXPECT_EQ(decoded.status.results->mlperf, folded.mlperf);
  EXPECT_EQ(decoded.status.results->repeats, folded.repeats);
}

TEST(Repeats, RepeatsWithoutAGoalHaveNoMlperfScore) {
  const BenchmarkSpec spec = SpecWithSeed(42);
  const BenchmarkResults folded =
      FoldRepeats(spec, Measured(110, 31, 20), {RepeatOf(0, spec, Measured(100, 29, 10)), RepeatOf(1, spec, Measured(110, 31, 20))});
  EXPECT_FALSE(folded.mlperf.has_value());
}

TEST(Repeats, OneRunIsItsOwnResult) {
  const BenchmarkResults one = Measured(100, 30, 900);
  const BenchmarkResults folded = FoldRepeats(SpecWithSeed(1), one, {RepeatOf(0, SpecWithSeed(1), one)});
  EXPECT_TRUE(folded.summary.empty());
  EXPECT_TRUE(folded.repeats.empty());
}

TEST(Repeats, RepeatsAndTheirSummaryRoundTripThroughStatus) {
  const BenchmarkSpec spec = SpecWithSeed(42);
  BenchmarkStatus status;
  status.repeats = {RepeatOf(0, spec, Measured(100, 29, 10))};
  status.results = FoldRepeats(spec, Measured(110, 31, 20), {RepeatOf(0, spec, Measured(100, 29, 10)), RepeatOf(1, spec, Measured(110, 31, 20))});
  const nlohmann::json encoded = EncodeStatus(status);
  EXPECT_EQ(encoded["repeats"][0]["figures"]["samplesPerSecond"], 100);
  EXPECT_EQ(encoded["results"]["summary"]["samplesPerSecond"]["median"], 105);
  EXPECT_EQ(encoded["results"]["repeats"][1]["seed"], 43);
  const Benchmark decoded = ThroughTheResource(status);
  EXPECT_EQ(decoded.status.repeats, status.repeats);
  EXPECT_EQ(decoded.status.results->repeats, status.results->repeats);
  EXPECT_EQ(EncodeStatus(decoded.status), encoded);
}

TEST(Repeats, AFigureOfTheWrongTypeIsNamed) {
  nlohmann::json object = {{"apiVersion", "ergobench.io/v1alpha1"}, {"kind", "Benchmark"},
                           {"metadata", {{"name", "x"}}}, {"spec", {{"task", "0a"}}},
                           {"status", {{"repeats", {{{"repeat", 0}, {"figures", {{"samplesPerSecond", "fast"}}}}}}}}};
  FieldErrors errors, status_errors;
  DecodeBenchmark(object, &errors, &status_errors);
  EXPECT_NE(status_errors.ToString().find("status.repeats[0].figures.samplesPerSecond"), std::string::npos)
      << status_errors.ToString();
}

}  // namespace
}  // namespace ergobench
