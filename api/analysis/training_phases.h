// The phases of a training step, and the one definition of the communication ratio that the
// runner, status.results, `ergobench report` and the dashboards share (docs/architecture.md, "Metrics"):
//
//   step time = data + forward + backward + optimizer + communication   (evaluation is outside)
//   compute   = forward + backward + optimizer
//   ratio     = communication / step time
//
// Results keep phase seconds by name (Figures::phase_seconds, the `phase` label of
// ergobench_phase_seconds_total); these functions are the only place the names are spelled.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "api/v1alpha1/result.h"

namespace ergobench {

enum class TrainingPhase { kData, kForward, kBackward, kOptimizer, kCommunication, kEval };

inline constexpr std::array<TrainingPhase, 6> kTrainingPhases = {
    TrainingPhase::kData,      TrainingPhase::kForward,       TrainingPhase::kBackward,
    TrainingPhase::kOptimizer, TrainingPhase::kCommunication, TrainingPhase::kEval};

// "data", "forward", "backward", "optimizer", "communication", "eval".
const char* PhaseName(TrainingPhase phase);
std::optional<TrainingPhase> ParsePhaseName(const std::string& name);

// Whether the phase counts towards the step time: all but evaluation.
bool InStepTime(TrainingPhase phase);
bool IsCompute(TrainingPhase phase);  // forward, backward, optimizer

// Sets compute_seconds, communication_seconds, communication_ratio and data_wait_share from
// phase_seconds. Each is set only where its phases were timed: a task that times communication
// alone (0a) gets communication seconds but neither compute nor a ratio. The data wait share is
// the data phase over the step time, as the communication ratio is communication's.
void DerivePhaseFigures(Figures* figures);

// A run is I/O-bound when its steps wait for data more than this share of their time: MLPerf
// Storage's rule, under 90% accelerator utilisation (the time the accelerator computes).
inline constexpr double kIoBoundShare = 0.10;
bool IsIoBound(const Figures& figures);

}  // namespace ergobench
