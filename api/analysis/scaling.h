// Speedup and scaling efficiency, defined once for `ergobench report` and a sweep's status.
#pragma once

#include <cstdint>
#include <optional>

#include "api/v1alpha1/result.h"

namespace ergobench {

// Of `run` over `base` (its series' run of fewest workers): by time to accuracy when both reached
// the goal, which is what a user waits for; else by samples per second.
std::optional<double> Speedup(const Figures& run, const Figures& base);

// speedup / (workers / base_workers): 1 is linear scaling.
double ScalingEfficiency(double speedup, int64_t workers, int64_t base_workers);

}  // namespace ergobench
