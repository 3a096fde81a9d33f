// Repeats of one Benchmark (spec.repeats), as MLPerf runs N seeded repeats because one run of
// a noisy system means little: which figures are the headline ones, the seed each repeat
// trains with, and how the repeats fold into one result (the medians, with their statistics).
// Used by the operator between gangs, by `ergobench run` between local runs, and by the
// regression check (regression.h), which compares the same figures.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/headline_figures.h"
#include "api/v1alpha1/result.h"

namespace ergobench {

// `spec` as repeat `repeat` runs it: hyperparameters.seed derived (DerivedSeed, defaults.h;
// defaults applied before), so repeat 0 is the run without repeats; a task without a seed runs
// as it is.
void ApplyRepeatSeed(BenchmarkSpec* spec, int64_t repeat);

// The headline figures one repeat measured, and whether it reached its goal in how many samples.
RepeatResult RepeatOf(int64_t repeat, const BenchmarkSpec& spec, const BenchmarkResults& results);

// The last repeat's results with every repeat's figures in `repeats`, each headline figure's
// statistics in `summary` (over the repeats that measured it), the headline figures set to
// those medians, and, where the runs had a goal, MLPerf's score of them in `mlperf`
// (mlperf_score.h). One repeat alone is returned as it is, with no statistics.
BenchmarkResults FoldRepeats(const BenchmarkSpec& spec, BenchmarkResults last, std::vector<RepeatResult> repeats);

}  // namespace ergobench
