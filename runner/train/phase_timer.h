// Wall time per phase of a training step (data, forward, backward, optimizer,
// communication, eval), added to the runner's Prometheus counters as it is measured and
// summed for the result's phaseSeconds, computeSeconds, communicationSeconds and ratio
// (api/analysis/training_phases.h defines them); and the collectives' whole time, overlapped or not.
//
// On a GPU the work a phase queues runs after the phase's call returns, so wall time would
// charge it to whichever later phase first waits. There, a PhaseTimeline (CUDA events:
// training_device.h) times each phase on the GPU's own clock, from a marker queued before it to
// one queued after, read once a step (Settle) so that timing never stalls the queue.
#pragma once

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "api/analysis/training_phases.h"
#include "api/v1alpha1/result.h"
#include "base/clock.h"
#include "runner/metrics/runner_metrics.h"

namespace ergobench {

// Markers on a device's queue and the time between them on the device's clock.
class PhaseTimeline {
 public:
  virtual ~PhaseTimeline() = default;
  // Queues a marker; its index until Clear().
  virtual size_t Mark() = 0;
  // Seconds from marker `from` to marker `to`, waiting for `to` to be reached.
  virtual double Seconds(size_t from, size_t to) = 0;
  // The markers so far are read: their indices may be reused.
  virtual void Clear() = 0;
};

class PhaseTimer {
 public:
  explicit PhaseTimer(RunnerMetrics& metrics, const TimeSource& time = SteadyTime()) : metrics_(metrics), time_(time) {}

  // Runs `fn`, charges its wall time to `phase` and returns it. A phase timed inside another
  // (ZeRO-3's gathers waited for within forward and backward) is charged to itself alone: the
  // enclosing phase keeps only the rest, so that every second counts once.
  // With a timeline, the phase is charged its time on the device at the next Settle(); a phase
  // timed inside it runs untimed, its time left to the enclosing one.
  template <typename Fn>
  double Time(TrainingPhase phase, Fn&& fn) {
    if (timeline_) return TimeOnTimeline(phase, std::forward<Fn>(fn));
    const double enclosing_nested = nested_seconds_;
    nested_seconds_ = 0;
    const auto start = time_.Now();
    fn();
    if (fence_) fence_();
    const double seconds = std::chrono::duration<double>(time_.Now() - start).count();
    const double own = seconds - nested_seconds_;
    Charge(phase, own);
    nested_seconds_ = enclosing_nested + seconds;
    return seconds;
  }

  // Called after each phase's work and before its end is read: on a GPU, waits for the work
  // the phase queued (training_device.h's FenceDevice), which would otherwise be charged to
  // whichever later phase first waits for it.
  void set_fence(std::function<void()> fence) { fence_ = std::move(fence); }
  // Times phases on a device's clock instead (see above); null: wall time.
  void set_timeline(std::unique_ptr<PhaseTimeline> timeline) { timeline_ = std::move(timeline); }
  // Charges the phases timed on the timeline since the last call, waiting for the last of them
  // to finish on the device. Once a step, where the step waits for its work anyway.
  void Settle();

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
  template <typename Fn>
  double TimeOnTimeline(TrainingPhase phase, Fn&& fn) {
    const auto start = time_.Now();
    if (in_phase_) {
      fn();
    } else {
      in_phase_ = true;
      const size_t from = timeline_->Mark();
      fn();
      pending_.push_back({phase, from, timeline_->Mark()});
      in_phase_ = false;
    }
    return std::chrono::duration<double>(time_.Now() - start).count();
  }
  void Charge(TrainingPhase phase, double seconds);

  struct Pending {
    TrainingPhase phase;
    size_t from;
    size_t to;
  };

  double nested_seconds_ = 0;  // timed so far inside the phase being timed now
  std::function<void()> fence_;
  std::unique_ptr<PhaseTimeline> timeline_;
  std::vector<Pending> pending_;  // timed on the timeline, not yet charged
  bool in_phase_ = false;
};

}  // namespace ergobench
