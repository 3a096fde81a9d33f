// Statistics of repeated measurements (issue 18's repeats and regression checks): the median,
// the extremes, MLPerf's olympic mean (the mean without the best and the worst run) and a 95%
// confidence interval of the mean from Student's t, so that a comparison of two runs' repeats
// tells a change from noise.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "api/v1alpha1/summary.h"
#include "base/status.h"

namespace ergobench {


// An error names the problem: no values, or one that is not a finite number.
StatusOr<Summary> Summarize(std::vector<double> values);

// The 97.5% quantile of Student's t with `degrees` degrees of freedom (two-sided 95%), from
// Boost.Math's distribution: whole or not (Welch's), however many; NaN unless degrees > 0.
double StudentT975(double degrees);

}  // namespace ergobench
