// `ergobench report --baseline DIR`: each run against the baseline run of the same name, with
// the bands of its spec.baseline (or the --tolerance overrides, or the defaults), as the
// operator judges a Benchmark with spec.baseline (api/analysis/regression.h). A CI pipeline gates on
// the exit code: kExitRegressed when any run regressed.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/result.h"

namespace ergobench {

struct BaselineComparison {
  std::string run;
  std::string baseline;  // the baseline run's name; empty when there was none to compare with
  std::string missing;   // why not, when there was none
  std::vector<BaselineVerdict> verdicts;
};

// `overrides` (percent by figure) beat each run's own spec.baseline.tolerances.
std::vector<BaselineComparison> CompareWithBaselineRuns(const std::vector<Benchmark>& runs,
                                                        const std::vector<Benchmark>& baselines,
                                                        const std::map<std::string, double>& overrides);

// One line a run: name, verdict (REGRESSED | ok | -), and what was found.
std::string FormatBaselineComparisons(const std::vector<BaselineComparison>& comparisons, const std::string& where);

}  // namespace ergobench
