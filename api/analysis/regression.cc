#include "api/analysis/regression.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "api/analysis/repeats.h"
#include "api/analysis/statistics.h"
#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/benchmark_phase.h"
#include "base/units.h"

namespace ergobench {
namespace {

// The figure's median over repeats, or its one value.
std::optional<double> ValueOf(const HeadlineFigure& figure, const BenchmarkResults& results) {
  if (const auto it = results.summary.find(figure.name); it != results.summary.end()) return it->second.median;
  return figure.get(results);
}

// Repeats' statistics of the figure, from two repeats on.
const Summary* RepeatsOf(const HeadlineFigure& figure, const BenchmarkResults& results) {
  const auto it = results.summary.find(figure.name);
  return it != results.summary.end() && it->second.n >= 2 && it->second.stddev ? &it->second : nullptr;
}

// The worst a run may be: scale x baseline + shift. A band in percent scales the baseline
// (throughput -5%: 0.95 x); one in points shifts it (a ratio +5 points: + 0.05).
struct Limit {
  double scale = 1;
  double shift = 0;
  double Of(double baseline) const { return scale * baseline + shift; }
};

Limit LimitOf(const HeadlineFigure& figure, double band) {
  const double worse = figure.higher_is_better ? -band / 100 : band / 100;
  return figure.band_in_points ? Limit{1, worse} : Limit{1 + worse, 0};
}

// Whether the run's mean is worse than the limit on the baseline's mean at 95% confidence:
// Welch's interval of the difference (unequal variances, Welch-Satterthwaite degrees of freedom)
// lies wholly on the worse side of zero.
bool SignificantlyWorse(const Summary& baseline, const Summary& run, const Limit& limit, bool higher_is_better) {
  const double a = *run.stddev * *run.stddev / static_cast<double>(run.n);
  const double b = limit.scale * limit.scale * *baseline.stddev * *baseline.stddev / static_cast<double>(baseline.n);
  const double difference = run.mean - limit.Of(baseline.mean);
  const double se = std::sqrt(a + b);
  double half = 0;
  if (se > 0) {
    const double df = (a + b) * (a + b) /
                      (a * a / static_cast<double>(run.n - 1) + b * b / static_cast<double>(baseline.n - 1));
    half = StudentT975(df) * se;
  }
  return higher_is_better ? difference + half < 0 : difference - half > 0;
}

}  // namespace

std::vector<BaselineVerdict> CompareWithBaseline(const BenchmarkResults& baseline, const BenchmarkResults& run,
                                                 const std::map<std::string, double>& tolerances) {
  std::vector<BaselineVerdict> verdicts;
  for (const HeadlineFigure& figure : HeadlineFigures()) {
    const std::optional<double> before = ValueOf(figure, baseline);
    const std::optional<double> now = ValueOf(figure, run);
    if (!before || !now) continue;
    BaselineVerdict v;
    v.figure = figure.name;
    v.baseline = *before;
    v.value = *now;
    const auto band = tolerances.find(figure.name);
    v.band_percent = band != tolerances.end() ? band->second : figure.default_band_percent;
    const Limit limit = LimitOf(figure, v.band_percent);
    const Summary* base_repeats = RepeatsOf(figure, baseline);
    const Summary* run_repeats = RepeatsOf(figure, run);
    if (base_repeats != nullptr && run_repeats != nullptr) {
      v.basis = "repeats";
      v.regressed = SignificantlyWorse(*base_repeats, *run_repeats, limit, figure.higher_is_better);
    } else {
      v.basis = "values";
      v.regressed = figure.higher_is_better ? *now < limit.Of(*before) : *now > limit.Of(*before);
    }
    verdicts.push_back(v);
  }
  return verdicts;
}

std::string DescribeBaseline(const Baseline& b) {
  if (!b.benchmark.empty()) return "Benchmark " + b.benchmark;
  if (!b.config_map.empty()) return "ConfigMap " + b.config_map;
  return b.path;
}

void JudgeAgainstBaseline(const BenchmarkResults& baseline, const std::string& described_as,
                          const std::map<std::string, double>& tolerances, BenchmarkResults* results) {
  results->baseline = described_as;
  results->verdicts = CompareWithBaseline(baseline, *results, tolerances);
}

std::optional<Condition> RegressionCondition(const BenchmarkResults& results) {
  if (results.baseline.empty()) return std::nullopt;
  Condition c;
  c.type = kConditionRegressed;
  const bool regressed = AnyRegressed(results.verdicts);
  c.status = regressed ? "True" : results.verdicts.empty() ? "Unknown" : "False";
  c.reason = regressed ? "FigureRegressed" : results.verdicts.empty() ? "NothingToCompare" : "WithinTolerance";
  c.message = "against " + results.baseline + ": " + DescribeVerdicts(results.verdicts);
  return c;
}

StatusOr<BenchmarkResults> BaselineResults(const nlohmann::json& object, const std::string& what) {
  FieldErrors errors;
  const Benchmark previous = object.is_object() ? DecodeBenchmark(object, &errors) : Benchmark{};
  if (!object.is_object() || !errors.empty()) {
    return Status::InvalidArgument(what + " is not a Benchmark" + (errors.empty() ? "" : ": " + errors.ToString()));
  }
  if (previous.status.phase != kPhaseSucceeded || !previous.status.results) {
    return Status::FailedPrecondition(what + " has not succeeded (phase \"" + previous.status.phase + "\")");
  }
  return *previous.status.results;
}

bool AnyRegressed(const std::vector<BaselineVerdict>& verdicts) {
  return std::any_of(verdicts.begin(), verdicts.end(), [](const BaselineVerdict& v) { return v.regressed; });
}

std::string DescribeVerdict(const BaselineVerdict& v) {
  const HeadlineFigure* figure = FindHeadlineFigure(v.figure);
  const bool higher_is_better = figure != nullptr && figure->higher_is_better;
  const bool in_points = figure != nullptr && figure->band_in_points;
  const std::string unit = in_points ? " points" : "%";
  std::string change = "n/a";
  if (in_points || v.baseline != 0) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f", in_points ? (v.value - v.baseline) * 100 : (v.value / v.baseline - 1) * 100);
    change = text + unit;
  }
  return v.figure + " " + FormatSignificant(v.value, 4) + " against " + FormatSignificant(v.baseline, 4) + " (" + change + ", band " +
         (higher_is_better ? "-" : "+") + FormatSignificant(v.band_percent, 4) + unit + ", " + v.basis + ")";
}

std::string DescribeVerdicts(const std::vector<BaselineVerdict>& verdicts) {
  std::string out;
  for (const BaselineVerdict& v : verdicts) {
    if (v.regressed) out += (out.empty() ? "" : "; ") + DescribeVerdict(v);
  }
  if (!out.empty()) return out;
  if (verdicts.empty()) return "no figure in common with the baseline";
  return std::to_string(verdicts.size()) + " figure" + (verdicts.size() == 1 ? "" : "s") + " within their bands";
}

}  // namespace ergobench
