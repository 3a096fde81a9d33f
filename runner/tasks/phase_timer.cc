#include "runner/tasks/phase_timer.h"

namespace ergobench {

void PhaseTimer::Report(Figures* f) const {
  f->phase_seconds = seconds_;
  f->compute_seconds = seconds_.at("forward") + seconds_.at("backward") + seconds_.at("optimizer");
  f->communication_seconds = seconds_.at("communication");
  if (*f->compute_seconds + *f->communication_seconds > 0) {
    f->communication_ratio = *f->communication_seconds / (*f->compute_seconds + *f->communication_seconds);
  }
}

}  // namespace ergobench
