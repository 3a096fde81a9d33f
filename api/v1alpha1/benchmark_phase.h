// The phases of a Benchmark (status.phase, the Phase printer column), spelled once.
#pragma once

#include <array>
#include <string_view>

namespace ergobench {

inline constexpr char kPhasePending[] = "Pending";
inline constexpr char kPhaseRunning[] = "Running";
inline constexpr char kPhaseSucceeded[] = "Succeeded";
inline constexpr char kPhaseFailed[] = "Failed";
inline constexpr std::array<std::string_view, 4> kBenchmarkPhases = {kPhasePending, kPhaseRunning, kPhaseSucceeded,
                                                                    kPhaseFailed};

// Succeeded or Failed: nothing more happens to the Benchmark but its clean-up.
inline bool IsFinished(std::string_view phase) { return phase == kPhaseSucceeded || phase == kPhaseFailed; }

}  // namespace ergobench
