// Training curves, MLBench's headline plot: each evaluation's value against the wall time since
// run_start and against the samples trained, read from rank 0's mllog (runner/metrics/mllog.h:
// eval_accuracy, eval_loss and train_loss points with an epoch_num or a step_num).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ergobench {

// A log is data from a run (a file, a ConfigMap): a curve keeps at most this many points.
inline constexpr size_t kMaxCurvePoints = 10000;

struct CurvePoint {
  double seconds = 0;              // since run_start, at the point's first value
  std::optional<double> samples;   // trained by then: epoch_num x train_samples, or step_num x global_batch_size
  std::map<std::string, double> values;  // by mllog key: eval_accuracy, eval_loss, train_loss
};

struct TrainingCurve {
  std::vector<CurvePoint> points;  // in the log's order
};

// Lines that are not ":::MLLOG {json}", events before run_start and values that are not finite
// numbers are skipped, so that a log cut short still gives the points before the cut. The
// values of one epoch (or step) make one point.
TrainingCurve ParseTrainingCurve(std::string_view mllog);

// By RunKey (report.h).
using TrainingCurves = std::map<std::string, TrainingCurve>;

}  // namespace ergobench
