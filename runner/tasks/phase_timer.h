// Wall time per phase of a training step (data, forward, backward, optimizer,
// communication, eval), added to the runner's Prometheus counters as it is measured and
// summed for the result's phaseSeconds, computeSeconds, communicationSeconds and ratio
// (api/training_phases.h defines them); and the collectives' whole time, overlapped or not.
#pragma once

#include <array>
#include <chrono>
#include <optional>

#include "api/result.h"
#include "api/training_phases.h"
#include "runner/metrics/runner_metrics.h"

namespace ergobench {

class PhaseTimer {
 public:
  explicit PhaseTimer(RunnerMetrics& metrics) : metrics_(metrics) {}

  // Runs `fn`, charges its wall time to `phase` and returns it.
  template <typename Fn>
  double Time(TrainingPhase phase, Fn&& fn) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    seconds_[static_cast<size_t>(phase)] += seconds;
    metrics_.AddPhaseSeconds(phase, seconds);
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
  std::array<double, kTrainingPhases.size()> seconds_{};  // by TrainingPhase
  std::optional<double> collective_seconds_;
};

}  // namespace ergobench
