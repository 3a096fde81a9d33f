// MLPerf's score of a benchmark's runs, as mlcommons/logging's result summarizer computes it
// (_compute_strong_score_standalone): each converged run's time to train, run_start to run_stop
// in minutes; too many runs that did not converge (more than one; four for unet3d's 40) and
// there is no score; otherwise those that did not converge count as the slowest, and the score
// is the mean without the fastest and the slowest (the olympic mean). Samples (and epochs) to
// converge are the converged runs' olympic mean, from three runs, as the summarizer's
// samples_to_converge column.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/result.h"

namespace ergobench {

struct MlperfRun {
  std::optional<double> minutes;  // run_start..run_stop; absent: the run did not converge
  std::optional<double> samples;  // to convergence
  std::optional<double> epochs;
};

// `benchmark` is MLPerf's name (mlperf_benchmarks.h): it says how many runs the score takes
// and how many may fail to converge.
MlperfScore ScoreMlperfRuns(const std::string& benchmark, const std::vector<MlperfRun>& runs);

// The repeats of a Benchmark of `spec`, scored; none unless they had a goal and there are two.
std::optional<MlperfScore> ScoreRepeats(const BenchmarkSpec& spec, const std::vector<RepeatResult>& repeats);

}  // namespace ergobench
