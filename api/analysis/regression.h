// Regression detection: a run's headline figures (repeats.h) against a baseline's, each with a
// tolerance band (throughput may fall 5%, time to accuracy rise 10%, ...). When both sides
// have repeats, noise alone must not trip it: a figure regressed only when the run's mean is
// worse than the band allows at 95% confidence (Welch's interval of the difference of the
// means). Otherwise the values (medians) are compared. Used by the operator (the Regressed
// condition and ergobench_benchmark_regressed), `ergobench run` with spec.baseline and
// `ergobench report --baseline`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/result.h"

namespace ergobench {

inline constexpr char kConditionRegressed[] = "Regressed";

// The verdict on every headline figure both results have, in HeadlineFigures() order.
// `tolerances` (percent by figure; percentage points for a ratio) override the figures' default
// bands.
std::vector<BaselineVerdict> CompareWithBaseline(const BenchmarkResults& baseline, const BenchmarkResults& run,
                                                 const std::map<std::string, double>& tolerances);

// How a status names the baseline: "Benchmark fmnist-k2", "ConfigMap fmnist-k2-results", or
// the results directory's path.
std::string DescribeBaseline(const Baseline& baseline);

// Sets results->baseline (what it was compared with, as a reader should see it) and
// results->verdicts.
void JudgeAgainstBaseline(const BenchmarkResults& baseline, const std::string& described_as,
                          const std::map<std::string, double>& tolerances, BenchmarkResults* results);

// The Regressed condition's status, reason and message for results judged against a baseline
// (no times: the writer adds them); none when they were not. Reasons: FigureRegressed,
// WithinTolerance, NothingToCompare.
std::optional<Condition> RegressionCondition(const BenchmarkResults& results);

// The results to judge against from `object`, a Benchmark's JSON (as the API serves it, or a
// results folder's benchmark.json); an error, naming `what`, unless it decodes and succeeded.
StatusOr<BenchmarkResults> BaselineResults(const nlohmann::json& object, const std::string& what);

bool AnyRegressed(const std::vector<BaselineVerdict>& verdicts);

// "samplesPerSecond 1210 against 1520 (-20.4%, band -5%, values)".
std::string DescribeVerdict(const BaselineVerdict& verdict);
// The regressed ones, "; "-joined; or, when none, how many figures were within their bands.
std::string DescribeVerdicts(const std::vector<BaselineVerdict>& verdicts);

}  // namespace ergobench
