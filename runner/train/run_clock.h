// MLPerf's clock for the training tasks, and their throughput window. Initialisation is
// timed apart (init_start .. init_stop); run_start comes before the data is first touched;
// time to accuracy stops at the first evaluation that reaches the goal; run_stop ends the
// timed region. Samples/s cover the steps after the warm-up only. Time comes from a
// TimeSource, so the rule is tested on a fake clock (tests/runner/train/run_clock_test.cc).
#pragma once

#include <cstdint>

#include "api/v1alpha1/result.h"
#include "base/clock.h"

namespace ergobench {

class MlLog;
class RunnerMetrics;

class RunClock {
 public:
  // Starts timing initialisation; the runner has logged init_start.
  RunClock(MlLog& mllog, RunnerMetrics& metrics, int64_t warmup_steps, const TimeSource& time = SteadyTime());

  // init_stop, then run_start; sets init_seconds and run_start_ms (the log's time_ms).
  void StartRun(Figures* f);
  // Seconds since run_start.
  double Elapsed() const;
  // Seconds since `start`, on this clock: what a step measures.
  double SecondsSince(Clock::time_point start) const;
  Clock::time_point Now() const { return time_.Now(); }
  // One optimizer step: the step metrics, and the window once past the warm-up.
  void Step(double seconds, int64_t samples);
  // The evaluation that reached the goal: time to accuracy is now.
  void ReachGoal(Figures* f);
  // run_stop; run_stop_ms, run_seconds, samples, the window's samples/s, and goal_reached false where a
  // goal was set and missed.
  void StopRun(bool has_goal, Figures* f);

  int64_t steps() const { return steps_; }
  int64_t window_steps() const { return window_steps_; }
  int64_t window_samples() const { return window_samples_; }
  double window_seconds() const { return window_seconds_; }

 private:
  MlLog& mllog_;
  RunnerMetrics& metrics_;
  int64_t warmup_steps_;
  const TimeSource& time_;
  Clock::time_point init_start_;
  Clock::time_point run_start_;
  int64_t steps_ = 0;
  int64_t samples_ = 0;
  int64_t window_steps_ = 0;
  int64_t window_samples_ = 0;
  double window_seconds_ = 0;
};

}  // namespace ergobench
