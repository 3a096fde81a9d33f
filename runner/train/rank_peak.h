// What MFU divides by for one rank: on a GPU, the datasheet's dense peak in the precision it
// trains (device_peaks.h); on the CPU, its threads' measured FMA peak (cpu_peak.h).
#pragma once

#include <optional>
#include <string>

#include <torch/types.h>

namespace ergobench {

struct RankPeak {
  double flops_per_second = 0;
  std::string basis;  // "NVIDIA H100 SXM bf16 datasheet", "2 threads x avx512f FMA kernel, measured"
};

// None for a GPU not in the table, or a precision it lacks.
std::optional<RankPeak> PeakOfRank(torch::Device device, const std::string& precision);

}  // namespace ergobench
