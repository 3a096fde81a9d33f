#include "api/analysis/regression.h"

#include "api/analysis/statistics.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

BenchmarkResults Results(double samples_per_second, std::optional<double> tta = std::nullopt) {
  BenchmarkResults r;
  r.figures.samples_per_second = samples_per_second;
  r.figures.time_to_accuracy_seconds = tta;
  r.figures.run_seconds = 100;
  return r;
}

// Results of repeats with these throughputs.
BenchmarkResults Repeated(const std::vector<double>& samples_per_second) {
  BenchmarkResults r = Results(samples_per_second.front());
  r.summary["samplesPerSecond"] = *Summarize(samples_per_second);
  return r;
}

const BaselineVerdict& Find(const std::vector<BaselineVerdict>& verdicts, const std::string& figure) {
  for (const BaselineVerdict& v : verdicts) {
    if (v.figure == figure) return v;
  }
  static const BaselineVerdict kNone;
  ADD_FAILURE() << "no verdict on " << figure;
  return kNone;
}

TEST(Regression, AThroughputBelowItsBandRegresses) {
  // Default band 5%: the worst allowed is 950 samples/s.
  EXPECT_TRUE(Find(CompareWithBaseline(Results(1000), Results(940), {}), "samplesPerSecond").regressed);
  EXPECT_FALSE(Find(CompareWithBaseline(Results(1000), Results(960), {}), "samplesPerSecond").regressed);
  EXPECT_FALSE(Find(CompareWithBaseline(Results(1000), Results(1500), {}), "samplesPerSecond").regressed);
}

TEST(Regression, ATimeAboveItsBandRegresses) {
  // Default band 10%: the worst allowed is 110 s.
  EXPECT_TRUE(Find(CompareWithBaseline(Results(1, 100), Results(1, 111), {}), "timeToAccuracySeconds").regressed);
  EXPECT_FALSE(Find(CompareWithBaseline(Results(1, 100), Results(1, 109), {}), "timeToAccuracySeconds").regressed);
  EXPECT_FALSE(Find(CompareWithBaseline(Results(1, 100), Results(1, 50), {}), "timeToAccuracySeconds").regressed);
}

TEST(Regression, TheSpecsBandReplacesTheDefault) {
  const auto verdicts = CompareWithBaseline(Results(1000), Results(940), {{"samplesPerSecond", 20}});
  const BaselineVerdict& v = Find(verdicts, "samplesPerSecond");
  EXPECT_FALSE(v.regressed);
  EXPECT_EQ(v.band_percent, 20);
  EXPECT_EQ(v.basis, "values");
}

TEST(Regression, WithRepeatsOnBothSidesOnlyASignificantDifferenceRegresses) {
  // Worked by hand. Baseline mean 1000, run mean 930, both sd 10, n 3; the band allows 950.
  // Difference 930 - 950 = -20; se = sqrt(100/3 + 0.95^2 * 100/3) = 7.964; Welch's df = 3.99,
  // rounded down to 3, t = 3.182: the interval reaches -20 + 25.34 = +5.3, so noise may explain it.
  const BenchmarkResults baseline = Repeated({1000, 1010, 990});
  const BaselineVerdict noisy = Find(CompareWithBaseline(baseline, Repeated({930, 940, 920}), {}), "samplesPerSecond");
  EXPECT_FALSE(noisy.regressed);  // its median alone, 930 < 950, would have tripped it
  EXPECT_EQ(noisy.basis, "repeats");
  EXPECT_DOUBLE_EQ(noisy.value, 930);
  EXPECT_DOUBLE_EQ(noisy.baseline, 1000);
  // Run mean 900: -50 + 25.34 < 0.
  EXPECT_TRUE(Find(CompareWithBaseline(baseline, Repeated({900, 910, 890}), {}), "samplesPerSecond").regressed);
  // With repeats on one side only, the medians decide.
  EXPECT_EQ(Find(CompareWithBaseline(Results(1000), Repeated({930, 940, 920}), {}), "samplesPerSecond").basis, "values");
  // Repeats that did not vary at all: any shortfall beyond the band counts.
  EXPECT_TRUE(Find(CompareWithBaseline(Repeated({1000, 1000}), Repeated({949, 949}), {}), "samplesPerSecond").regressed);
  EXPECT_FALSE(Find(CompareWithBaseline(Repeated({1000, 1000}), Repeated({951, 951}), {}), "samplesPerSecond").regressed);
}

// Results whose communication took this share of the step time.
BenchmarkResults WithRatio(double communication_ratio) {
  BenchmarkResults r = Results(1000);
  r.figures.communication_ratio = communication_ratio;
  return r;
}

TEST(Regression, ARatiosBandIsInPercentagePoints) {
  // A ratio near zero is noise in relative terms: an identical single-worker re-run measured
  // 0.030 against 0.009 (+233%). Its default band is 5 points: the worst allowed here is 0.059.
  const BaselineVerdict same = Find(CompareWithBaseline(WithRatio(0.009), WithRatio(0.030), {}), "communicationRatio");
  EXPECT_FALSE(same.regressed);
  EXPECT_EQ(same.band_percent, 5);
  EXPECT_EQ(DescribeVerdict(same), "communicationRatio 0.03 against 0.009 (+2.1 points, band +5 points, values)");
  EXPECT_TRUE(Find(CompareWithBaseline(WithRatio(0.009), WithRatio(0.060), {}), "communicationRatio").regressed);
  // A spec's band for it is in points too: 0.30 -> 0.33 is within 5 points, not within 2.
  EXPECT_FALSE(Find(CompareWithBaseline(WithRatio(0.30), WithRatio(0.33), {}), "communicationRatio").regressed);
  EXPECT_TRUE(
      Find(CompareWithBaseline(WithRatio(0.30), WithRatio(0.33), {{"communicationRatio", 2}}), "communicationRatio")
          .regressed);
  // With repeats on both sides, Welch's test against the baseline's mean plus the points.
  BenchmarkResults baseline = WithRatio(0.009), run = WithRatio(0.030);
  baseline.summary["communicationRatio"] = *Summarize({0.009, 0.010, 0.008, 0.009});
  run.summary["communicationRatio"] = *Summarize({0.030, 0.031, 0.029, 0.030});
  EXPECT_FALSE(Find(CompareWithBaseline(baseline, run, {}), "communicationRatio").regressed);
  run.summary["communicationRatio"] = *Summarize({0.080, 0.081, 0.079, 0.080});
  EXPECT_TRUE(Find(CompareWithBaseline(baseline, run, {}), "communicationRatio").regressed);
}

TEST(Regression, OnlyFiguresBothSidesHaveAreCompared) {
  const auto verdicts = CompareWithBaseline(Results(1000, 100), Results(1000), {});
  ASSERT_EQ(verdicts.size(), 2u);  // samplesPerSecond and runSeconds, not the time to accuracy
  EXPECT_EQ(verdicts[0].figure, "samplesPerSecond");
  EXPECT_EQ(verdicts[1].figure, "runSeconds");
  EXPECT_FALSE(AnyRegressed(verdicts));
  EXPECT_EQ(DescribeVerdicts(verdicts), "2 figures within their bands");
}

TEST(Regression, TheDescriptionNamesTheFigureBothValuesAndTheBand) {
  const auto verdicts = CompareWithBaseline(Results(1520, 100), Results(1210, 100), {});
  EXPECT_TRUE(AnyRegressed(verdicts));
  EXPECT_EQ(DescribeVerdicts(verdicts), "samplesPerSecond 1210 against 1520 (-20.4%, band -5%, values)");
  EXPECT_EQ(DescribeVerdict(Find(CompareWithBaseline(Results(1, 100), Results(1, 125), {}), "timeToAccuracySeconds")),
            "timeToAccuracySeconds 125 against 100 (+25.0%, band +10%, values)");
}

TEST(Regression, OnlyASucceededBenchmarkIsABaseline) {
  const nlohmann::json failed = {{"apiVersion", "ergobench.io/v1alpha1"}, {"kind", "Benchmark"},
                                 {"metadata", {{"name", "old"}}}, {"spec", {{"task", "0a"}}},
                                 {"status", {{"phase", "Failed"}}}};
  EXPECT_EQ(BaselineResults(failed, "Benchmark old").status().message(),
            "Benchmark old has not succeeded (phase \"Failed\")");
  EXPECT_EQ(BaselineResults(nlohmann::json::parse("[1]"), "old/benchmark.json").status().message(),
            "old/benchmark.json is not a Benchmark");
  nlohmann::json succeeded = failed;
  succeeded["status"] = {{"phase", "Succeeded"}, {"results", {{"samplesPerSecond", 1500}}}};
  EXPECT_EQ(*BaselineResults(succeeded, "Benchmark old")->figures.samples_per_second, 1500);
}

}  // namespace
}  // namespace ergobench
