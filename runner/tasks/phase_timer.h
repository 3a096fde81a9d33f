// Wall time per phase of a training step (data, forward, backward, optimizer,
// communication, eval), added to the runner's Prometheus counters as it is measured and
// summed for the result's phaseSeconds, computeSeconds, communicationSeconds and ratio
// (api/training_phases.h defines them).
#pragma once

#include <array>
#include <chrono>

#include "api/result.h"
#include "api/training_phases.h"
#include "runner/metrics/runner_metrics.h"

namespace ergobench {

class PhaseTimer {
 public:
  explicit PhaseTimer(RunnerMetrics& metrics) : metrics_(metrics) {}

  // Runs `fn` and charges its wall time to `phase`.
  template <typename Fn>
  void Time(TrainingPhase phase, Fn&& fn) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    seconds_[static_cast<size_t>(phase)] += seconds;
    metrics_.AddPhaseSeconds(phase, seconds);
  }

  // phase_seconds, and from them compute, communication and the ratio.
  void Report(Figures* figures) const;

 private:
  RunnerMetrics& metrics_;
  std::array<double, kTrainingPhases.size()> seconds_{};  // by TrainingPhase
};

}  // namespace ergobench
