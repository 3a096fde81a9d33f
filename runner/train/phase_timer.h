// Wall time per phase of a training step (data, forward, backward, optimizer,
// communication, eval), added to the runner's Prometheus counters as it is measured and
// summed for the result's phaseSeconds, computeSeconds, communicationSeconds and ratio
// (api/analysis/training_phases.h defines them); and the collectives' whole time, overlapped or not.
#pragma once

#include <array>
#include <chrono>
#include <optional>

#include "api/analysis/training_phases.h"
#include "api/v1alpha1/result.h"
#include "base/clock.h"
#include "runner/metrics/runner_metrics.h"

namespace ergobench {

class PhaseTimer {
 public:
  explicit PhaseTimer(RunnerMetrics& metrics, const TimeSource& time = SteadyTime()) : metrics_(metrics), time_(time) {}

  // Runs `fn`, charges its wall time to `phase` and returns it. A phase timed inside another
  // (ZeRO-3's gathers waited for within forward and backward) is charged to itself alone: the
  // enclosing phase keeps only the rest, so that every second counts once.
  template <typename Fn>
  double Time(TrainingPhase phase, Fn&& fn) {
    const double enclosing_nested = nested_seconds_;
    nested_seconds_ = 0;
    const auto start = time_.Now();
    fn();
    const double seconds = std::chrono::duration<double>(time_.Now() - start).count();
    const double own = seconds - nested_seconds_;
    seconds_[static_cast<size_t>(phase)] += own;
    metrics_.AddPhaseSeconds(phase, own);
    nested_seconds_ = enclosing_nested + seconds;
    return seconds;
  }

  // The whole time of collectives, whether the step waited for them or not (overlapped with
  // backward); for a flat all-reduce, the same seconds as its communication phase.
  void AddCollectiveSeconds(double seconds);

  // phase_seconds, and from them compute, communication and the ratio; collective_seconds
  // where collectives were timed.
  void Report(Figures* figures) const;

 private:
  RunnerMetrics& metrics_;
  const TimeSource& time_;
  std::array<double, kTrainingPhases.size()> seconds_{};  // by TrainingPhase
  std::optional<double> collective_seconds_;
  double nested_seconds_ = 0;  // timed so far inside the phase being timed now
};

}  // namespace ergobench
