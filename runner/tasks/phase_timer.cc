#include "runner/tasks/phase_timer.h"

namespace ergobench {

void PhaseTimer::Report(Figures* f) const {
  f->phase_seconds.clear();
  for (TrainingPhase phase : kTrainingPhases) f->phase_seconds[PhaseName(phase)] = seconds_[static_cast<size_t>(phase)];
  DerivePhaseFigures(f);
}

}  // namespace ergobench
