#include "runner/train/run_clock.h"

#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"

namespace ergobench {

RunClock::RunClock(MlLog& mllog, RunnerMetrics& metrics, int64_t warmup_steps, const TimeSource& time)
    : mllog_(mllog), metrics_(metrics), warmup_steps_(warmup_steps), time_(time), init_start_(time.Now()) {}

double RunClock::SecondsSince(Clock::time_point start) const {
  return std::chrono::duration<double>(time_.Now() - start).count();
}

void RunClock::StartRun(Figures* f) {
  f->init_seconds = SecondsSince(init_start_);
  mllog_.Stop("init_stop");
  run_start_ = time_.Now();
  f->run_start_ms = mllog_.Start("run_start");
}

double RunClock::Elapsed() const { return SecondsSince(run_start_); }

void RunClock::Step(double seconds, int64_t samples) {
  metrics_.ObserveStep(seconds);
  metrics_.AddSamples(static_cast<double>(samples));
  samples_ += samples;
  if (++steps_ > warmup_steps_) {
    window_seconds_ += seconds;
    window_samples_ += samples;
    ++window_steps_;
  }
}

void RunClock::ReachGoal(Figures* f) {
  f->goal_reached = true;
  f->time_to_accuracy_seconds = Elapsed();
  metrics_.SetGoalReached(true);
}

void RunClock::StopRun(bool has_goal, Figures* f) {
  const bool reached = f->goal_reached.value_or(false);
  f->run_stop_ms = mllog_.Stop("run_stop", {{"status", reached ? "success" : "aborted"}});
  f->run_seconds = Elapsed();
  if (has_goal && !reached) f->goal_reached = false;
  if (samples_ > 0) f->samples = samples_;
  if (window_seconds_ > 0) {
    f->samples_per_second = static_cast<double>(window_samples_) / window_seconds_;
    f->throughput_window_steps = window_steps_;
    f->throughput_window_seconds = window_seconds_;
  }
}

}  // namespace ergobench
