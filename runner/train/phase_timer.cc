#include "runner/train/phase_timer.h"

namespace ergobench {

void PhaseTimer::AddCollectiveSeconds(double seconds) {
  collective_seconds_ = collective_seconds_.value_or(0) + seconds;
  metrics_.AddCollectiveSeconds(seconds);
}

void PhaseTimer::Report(Figures* f) const {
  f->phase_seconds.clear();
  for (TrainingPhase phase : kTrainingPhases) f->phase_seconds[PhaseName(phase)] = seconds_[static_cast<size_t>(phase)];
  DerivePhaseFigures(f);
  f->collective_seconds = collective_seconds_;
}

}  // namespace ergobench
