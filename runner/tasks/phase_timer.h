// Wall time per phase of a training step (data, forward, backward, optimizer,
// communication, eval), added to the runner's Prometheus counters as it is measured and
// summed for the result's phaseSeconds, computeSeconds, communicationSeconds and ratio.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "api/result.h"
#include "runner/metrics/runner_metrics.h"

namespace ergobench {

class PhaseTimer {
 public:
  explicit PhaseTimer(RunnerMetrics& metrics) : metrics_(metrics) {
    for (const char* phase : kPhases) seconds_[phase] = 0;
  }

  // Runs `fn` and charges its wall time to `phase`.
  template <typename Fn>
  void Time(const char* phase, Fn&& fn) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    seconds_[phase] += seconds;
    metrics_.AddPhaseSeconds(phase, seconds);
  }

  // phase_seconds, compute (forward + backward + optimizer), communication and their ratio.
  void Report(Figures* figures) const;

 private:
  RunnerMetrics& metrics_;
  std::map<std::string, double> seconds_;
};

}  // namespace ergobench
