// The peak FP32 FLOP/s of the CPU cores a rank computes on, what MFU divides by on a CPU,
// measured rather than read off /proc/cpuinfo (whose arithmetic has to assume the FMA pipes and
// takes the nominal clock, not the one a loaded vector unit runs at): `threads` threads each run
// a kernel of kFmaChains independent fused multiply-add chains in the widest vector the CPU has
// (AVX-512, else AVX2 with FMA, else scalar fmaf) for a fixed time, as peak-FLOPS
// microbenchmarks do, and the peak is the sum of their rates, each thread's FLOPs over the CPU
// time it ran: a core that other work shares (a test suite beside the run, a noisy neighbour)
// slows the kernel's wall clock, not the core, and a peak from the wall clock once made a run's
// MFU 1.52. A fused multiply-add is 2 FLOPs.
#pragma once

#include <cstdint>
#include <string>

namespace ergobench {

// Independent chains, enough to cover the FMA latency (4 cycles) on two pipes.
inline constexpr int kFmaChains = 12;

// "avx512f", "avx2+fma" or "scalar": what this CPU runs.
std::string WidestFmaIsa();

// One thread's kernel: `iterations` rounds of kFmaChains vector FMAs, each lane doing
// x = x * a + b from 0. Returns the FLOPs done; `lane_value` is the first lane's final x
// (`iterations` for a = b = 1, exact below 2^24), which shows the work was done.
struct FmaRun {
  int64_t flops = 0;
  float lane_value = 0;
};
FmaRun RunFmaKernel(const std::string& isa, int64_t iterations, float a, float b);

struct CpuPeak {
  double flops_per_second = 0;
  std::string isa;
  int threads = 0;
  std::string basis;  // "2 threads x avx512f FMA kernel, measured"
};

// The CPU time the calling thread has run, in seconds (CLOCK_THREAD_CPUTIME_ID).
double ThreadCpuSeconds();

// `threads` threads, each running the kernel for `seconds` of the wall clock.
CpuPeak MeasureCpuPeak(int threads, double seconds);

// The peak of `threads` threads under a CPU quota of `quota_cpus` CPUs (cpu_budget.h), which
// lets them run that many CPUs' time a period: min(threads, quota) / threads of it, the basis
// saying so where the quota is the smaller.
CpuPeak WithinQuota(CpuPeak peak, double quota_cpus);

}  // namespace ergobench
