// How far a run is and how long the rest takes, as `ergobench run`'s progress line, the
// runner's ergobench_progress_* metrics and a Benchmark's status.progress all show it. The
// runner computes it once (runner/progress_writer.h); the others read what it said.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/v1alpha1/benchmark.h"  // kEstimatedFromWork, kEstimatedFromGoal

namespace ergobench {

struct ProgressEstimate {
  std::optional<double> done_fraction;  // of the most work the run may do, 0..1
  std::optional<double> seconds_left;
  std::string estimated_from;  // kEstimatedFromWork or kEstimatedFromGoal; empty without seconds_left
};

// The share of the most work the run may do that is done: 0a's sizes, gpt's steps (done of
// total), or, with `max_epochs`, whole epochs plus the share of this one. Absent before the
// first unit of work.
std::optional<double> DoneFraction(std::optional<int64_t> max_epochs, std::optional<int64_t> epoch, int64_t done,
                                   int64_t total);

// What ends a run besides its work: a goal metric reaching its target.
struct GoalTrend {
  double target = 0;
  bool higher_is_better = true;  // accuracy and BLEU; false for a loss
};

// Follows one run's observations and says, at each, how long the rest takes. The work's
// estimate is the rest of the work at the rate it went since it was first seen; where a goal
// may end the run sooner, the goal's is when the line through the last two evaluations
// reaches the target, and the sooner of the two is the estimate.
class ProgressEstimator {
 public:
  explicit ProgressEstimator(std::optional<GoalTrend> goal) : goal_(goal) {}

  // At `seconds` since the run started: the share of the work done, and the goal metric's value
  // as of the last evaluation (each absent when unknown).
  ProgressEstimate Observe(double seconds, std::optional<double> done_fraction, std::optional<double> goal_value);

 private:
  struct Point {
    double seconds = 0;
    double value = 0;
  };
  std::optional<double> WorkSecondsLeft(double seconds, double fraction) const;
  std::optional<double> GoalSecondsLeft(double seconds) const;

  std::optional<GoalTrend> goal_;
  std::optional<Point> first_work_;         // (seconds, fraction) when work was first seen
  std::optional<Point> evaluations_[2];     // the last two distinct evaluations, older first
};

}  // namespace ergobench
