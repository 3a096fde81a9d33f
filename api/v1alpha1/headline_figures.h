// The headline figures: the figures of status.results that users compare runs by, that repeats
// summarize (analysis/repeats.h) and that spec.baseline.tolerances names (validation.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/v1alpha1/result.h"

namespace ergobench {

// A figure users compare runs by, named as in status.results.
struct HeadlineFigure {
  std::string name;
  bool higher_is_better = false;
  double default_band_percent = 10;  // how much worse a run may be before it counts as regressed
  std::function<std::optional<double>(const BenchmarkResults&)> get;
  std::function<void(BenchmarkResults*, double)> set;
  // A ratio's band is in percentage points, not percent of its value: near zero (one worker's
  // communication) a relative band turns noise into a regression.
  bool band_in_points = false;
};

// samplesPerSecond, tokensPerSecond, peakBusBandwidthBytesPerSecond, timeToAccuracySeconds,
// runSeconds, energyJoules, energyToAccuracyJoules, communicationRatio.
const std::vector<HeadlineFigure>& HeadlineFigures();
const HeadlineFigure* FindHeadlineFigure(const std::string& name);

}  // namespace ergobench
