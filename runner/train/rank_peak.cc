#include "runner/train/rank_peak.h"

#include <ATen/Parallel.h>

#include "runner/cpu_budget.h"
#include "runner/cpu_peak.h"
#include "runner/device_peaks.h"
#if ERGOBENCH_HAS_CUDA
#include "runner/cuda/cuda_runtime.h"
#endif

namespace ergobench {

// Long enough for a steady rate (a few hundred kernel batches), short beside initialisation.
constexpr double kCpuPeakSeconds = 0.2;

std::optional<RankPeak> PeakOfRank(torch::Device device, const std::string& precision) {
  if (device.is_cuda()) {
#if ERGOBENCH_HAS_CUDA
    const std::optional<DevicePeak> peak = FindDevicePeak(CudaDeviceName(device.index()));
    if (!peak || PeakTflops(*peak, precision) <= 0) return std::nullopt;
    return RankPeak{PeakTflops(*peak, precision) * 1e12, peak->model + std::string(" ") + precision + " datasheet"};
#else
    return std::nullopt;
#endif
  }
  CpuPeak cpu = MeasureCpuPeak(at::get_num_threads(), kCpuPeakSeconds);
  if (const std::optional<double> quota = ReadCpuBudget().quota_cpus) cpu = WithinQuota(cpu, *quota);
  return RankPeak{cpu.flops_per_second, cpu.basis};
}

}  // namespace ergobench
