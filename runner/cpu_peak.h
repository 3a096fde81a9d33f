// The peak FP32 FLOP/s of the CPU cores a rank computes on, what MFU divides by on a CPU:
// cores x clock x FLOPs per cycle per core, from the widest vector FMA /proc/cpuinfo
// advertises, assuming two FMA pipes as on current server cores (AVX-512: 64, AVX2 with
// FMA: 32, AVX: 16, SSE2: 8). The clock is cpuinfo's "cpu MHz". An upper bound, not a
// measurement: the peakTflops hyperparameter overrides it.
#pragma once

#include <optional>
#include <string>

namespace ergobench {

struct CpuPeak {
  double flops_per_cycle = 0;  // per core
  double ghz = 0;
  double tflops = 0;  // for the given cores
  std::string basis;  // "2 cores x 2.45 GHz x 32 (avx2+fma)"
};

// From the text of /proc/cpuinfo; nullopt when it names no clock or no flags.
std::optional<CpuPeak> EstimateCpuPeak(const std::string& cpuinfo, int cores);

}  // namespace ergobench
