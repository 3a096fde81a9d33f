#include "runner/train/phase_timer.h"

namespace ergobench {

void PhaseTimer::Charge(TrainingPhase phase, double seconds) {
  seconds_[static_cast<size_t>(phase)] += seconds;
  metrics_.AddPhaseSeconds(phase, seconds);
}

void PhaseTimer::Settle() {
  if (!timeline_ || pending_.empty()) return;
  for (const Pending& p : pending_) Charge(p.phase, timeline_->Seconds(p.from, p.to));
  pending_.clear();
  timeline_->Clear();
}

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
