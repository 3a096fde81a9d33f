#include "api/analysis/training_phases.h"

namespace ergobench {

const char* PhaseName(TrainingPhase phase) {
  switch (phase) {
    case TrainingPhase::kData: return "data";
    case TrainingPhase::kForward: return "forward";
    case TrainingPhase::kBackward: return "backward";
    case TrainingPhase::kOptimizer: return "optimizer";
    case TrainingPhase::kCommunication: return "communication";
    case TrainingPhase::kEval: return "eval";
  }
  return "unknown";
}

std::optional<TrainingPhase> ParsePhaseName(const std::string& name) {
  for (TrainingPhase phase : kTrainingPhases) {
    if (name == PhaseName(phase)) return phase;
  }
  return std::nullopt;
}

bool InStepTime(TrainingPhase phase) { return phase != TrainingPhase::kEval; }

bool IsCompute(TrainingPhase phase) {
  return phase == TrainingPhase::kForward || phase == TrainingPhase::kBackward || phase == TrainingPhase::kOptimizer;
}

void DerivePhaseFigures(Figures* f) {
  std::optional<double> compute;
  std::optional<double> communication;
  std::optional<double> data;
  double step = 0;
  for (const auto& [name, seconds] : f->phase_seconds) {
    const std::optional<TrainingPhase> phase = ParsePhaseName(name);
    if (!phase) continue;
    if (IsCompute(*phase)) compute = compute.value_or(0) + seconds;
    if (*phase == TrainingPhase::kCommunication) communication = seconds;
    if (*phase == TrainingPhase::kData) data = seconds;
    if (InStepTime(*phase)) step += seconds;
  }
  f->compute_seconds = compute;
  f->communication_seconds = communication;
  f->communication_ratio.reset();
  f->data_wait_share.reset();
  if (compute && communication && step > 0) f->communication_ratio = *communication / step;
  if (compute && data && step > 0) f->data_wait_share = *data / step;
}

bool IsIoBound(const Figures& f) { return f.data_wait_share && *f.data_wait_share > kIoBoundShare; }

}  // namespace ergobench
