#include "runner/train/rank_peak.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>

#include "runner/cpu_budget.h"
#include "runner/cpu_peak.h"
#include "runner/device_peaks.h"
#if ERGOBENCH_HAS_CUDA
#include "runner/cuda/cuda_runtime.h"
#endif

namespace ergobench {

double BestCpuGemmFlopsPerSecond(int64_t n, int repeats) {
  torch::NoGradGuard no_grad;
  const torch::Tensor a = torch::rand({n, n}), b = torch::rand({n, n});
  torch::Tensor c = torch::mm(a, b);  // warm-up: the BLAS's buffers and threads
  double best = 0;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    torch::mm_out(c, a, b);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds > 0) best = std::max(best, 2.0 * static_cast<double>(n * n * n) / seconds);
  }
  return best;
}

std::optional<RankPeak> PeakOfRank(torch::Device device, const std::string& precision) {
  if (device.is_cuda()) {
#if ERGOBENCH_HAS_CUDA
    const std::optional<DevicePeak> peak = FindDevicePeak(CudaDeviceName(device.index()));
    if (!peak || PeakTflops(*peak, precision) <= 0) return std::nullopt;
    return RankPeak{PeakTflops(*peak, precision) * 1e12, peak->model + std::string(" ") + precision + " datasheet",
                    std::nullopt};
#else
    return std::nullopt;
#endif
  }
  // Sizes from what fits in a core's L2 to what streams from memory; about 0.15 s in all. The
  // clock, which a host's boost moves by several percent from one moment to the next (3.42 to
  // 3.69 GHz on an EPYC VM), is the highest of those measured right after each size, so that no
  // GEMM ran at a clock above the peak's.
  double gemm = 0, clock = 0;
  for (const int64_t n : {256, 512, 1024}) {
    gemm = std::max(gemm, BestCpuGemmFlopsPerSecond(n, 3));
    clock = std::max(clock, MeasureCoreClockHz(0.02));
  }
  const FmaUnits units = FmaUnitsOf(ReadCpuIdentity(), WidestFmaIsa());
  CpuPeak cpu = TheoreticalCpuPeak(at::get_num_threads(), CoresAvailable(), units, clock);
  if (const std::optional<double> quota = ReadCpuBudget().quota_cpus) cpu = WithinQuota(cpu, *quota);
  return RankPeak{cpu.flops_per_second, cpu.basis, gemm};
}

}  // namespace ergobench
