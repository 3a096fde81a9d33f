// The peak FP32 FLOP/s of the CPU cores a rank computes on, what MFU divides by on a CPU: the
// theoretical peak, as GPU datasheets state theirs (device_peaks.h), so that no workload can
// pass it: cores x FP32 FLOPs a core's FMA pipes retire a cycle x the core's clock. The FMA
// units come from a table of microarchitectures (two pipes of the widest vector where the table
// does not know the CPU, the most any x86 core has); the clock is measured, since a virtual
// machine hides the model and /proc/cpuinfo gives the nominal clock, not the boost one.
//
// An FMA kernel that keeps kFmaChains independent chains in registers shows what the pipes
// retire; its measured rate should sit just under the theoretical peak, which the tests check.
// (The peak was once that kernel's measured rate; its chains went through memory, it reached
// 45% of the pipes, and MFU came out at 112-124%.) A fused multiply-add is 2 FLOPs.
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

// The CPU as cpuid names it.
struct CpuIdentity {
  std::string vendor;  // "AuthenticAMD", "GenuineIntel"
  int family = 0;      // the display family (base + extended): 0x19 for AMD Zen 3 and 4
  int model = 0;       // the display model
};
CpuIdentity ReadCpuIdentity();

// What one core's FMA units retire a cycle at the widest vector the CPU runs.
struct FmaUnits {
  std::string isa;     // WidestFmaIsa()
  int lanes = 1;       // FP32 lanes of one vector: 16, 8, 1
  int pipes = 2;       // such vectors a core's FMA units start a cycle
  bool known = false;  // the table knows this microarchitecture; else `pipes` is an upper bound
  std::string source;  // "AMD family 19h (Zen 4): two 256-bit FMA pipes, one 512-bit FMA a cycle"
  int flops_per_cycle() const { return lanes * pipes * 2; }
};
FmaUnits FmaUnitsOf(const CpuIdentity& cpu, const std::string& isa);

// The calling thread's core clock in Hz: chains of dependent integer additions (one a cycle on
// every x86 core) over the thread's CPU time, the median of batches over `seconds`. `multiply`
// times dependent 64-bit multiplications instead (three cycles each), a second way to the same
// clock.
double MeasureCoreClockHz(double seconds, bool multiply = false);

// The physical cores the calling thread may run on: distinct (package, core) of the CPUs in its
// affinity mask (sysfs topology), or the mask's CPU count where sysfs does not say.
int CoresAvailable();

struct CpuPeak {
  double flops_per_second = 0;
  std::string isa;
  int threads = 0;
  int cores = 0;      // the cores the threads run on: min(threads, cores available)
  std::string basis;  // "2 cores x 32 FP32 FLOP/cycle (avx512f) x 3.63 GHz measured"
};

// The theoretical peak of `threads` threads on `cores` cores: min(threads, cores) cores x the
// units' FLOPs a cycle x `clock_hz`.
CpuPeak TheoreticalCpuPeak(int threads, int cores, const FmaUnits& units, double clock_hz);

// The CPU time the calling thread has run, in seconds (CLOCK_THREAD_CPUTIME_ID).
double ThreadCpuSeconds();

// The FMA kernel's rate on `threads` threads for `seconds` of the wall clock: the sum of each
// thread's FLOPs over the CPU time it ran, so that a core other work shares does not lower it.
double MeasureFmaKernelRate(int threads, double seconds);

// The peak under a CPU quota of `quota_cpus` CPUs (cpu_budget.h), which lets the threads run
// that many CPUs' time a period: min(cores, quota) / cores of it, the basis saying so where the
// quota is the smaller.
CpuPeak WithinQuota(CpuPeak peak, double quota_cpus);

}  // namespace ergobench
