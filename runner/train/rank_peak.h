// What MFU divides by for one rank, and what the rank's hardware achieves beside it: on a GPU,
// the datasheet's dense peak in the precision it trains (device_peaks.h); on the CPU, the
// theoretical peak of its threads' cores (cpu_peak.h), and the best matrix product torch runs
// there (as MAMF-finder measures GPUs: what a real kernel reaches, under the peak).
#pragma once

#include <optional>
#include <string>

#include <torch/types.h>

namespace ergobench {

struct RankPeak {
  double flops_per_second = 0;
  std::string basis;  // "NVIDIA H100 SXM bf16 datasheet", "2 cores x 32 FP32 FLOP/cycle (avx512f) x 3.63 GHz measured"
  std::optional<double> achievable_flops_per_second;  // the best GEMM measured; CPUs only for now
};

// None for a GPU not in the table, or a precision it lacks.
std::optional<RankPeak> PeakOfRank(torch::Device device, const std::string& precision);

// The best FP32 FLOP/s of a square matrix product (n x n by n x n: 2 n^3 FLOPs) on the CPU, with
// torch's threads as they are set, over the wall clock: the best of `repeats` after a warm-up.
double BestCpuGemmFlopsPerSecond(int64_t n, int repeats);

}  // namespace ergobench
