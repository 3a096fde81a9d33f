#include "runner/cpu_peak.h"

#include <chrono>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

int Lanes(const std::string& isa) { return isa == "avx512f" ? 16 : isa == "avx2+fma" ? 8 : 1; }

// Every kernel this CPU can run does the FMAs it counts: x = x * a + b from 0, n times, is n for
// a = b = 1 and 2^n - 1 for a = 2, b = 1, in every lane of every chain.
TEST(CpuPeakTest, EachKernelDoesTheFlopsItCounts) {
  std::vector<std::string> isas = {"scalar"};
  if (WidestFmaIsa() != "scalar") isas.push_back("avx2+fma");
  if (WidestFmaIsa() == "avx512f") isas.push_back("avx512f");
  for (const std::string& isa : isas) {
    const FmaRun ones = RunFmaKernel(isa, 1000, 1, 1);
    EXPECT_EQ(ones.flops, 1000 * kFmaChains * Lanes(isa) * 2) << isa;
    EXPECT_EQ(ones.lane_value, 1000) << isa;
    EXPECT_EQ(RunFmaKernel(isa, 10, 2, 1).lane_value, 1023) << isa;
  }
}

// The measured peak runs the widest kernel on every thread asked for. Its rate is a
// measurement; what is known is that the widest vector does several scalar FMAs' work at once.
TEST(CpuPeakTest, ThePeakIsTheWidestKernelsMeasuredRate) {
  const CpuPeak peak = MeasureCpuPeak(1, 0.05);
  EXPECT_EQ(peak.isa, WidestFmaIsa());
  EXPECT_EQ(peak.threads, 1);
  EXPECT_EQ(peak.basis, "1 thread x " + peak.isa + " FMA kernel, measured");
  const auto start = std::chrono::steady_clock::now();
  const FmaRun scalar = RunFmaKernel("scalar", 1 << 20, 1, 0);
  const double scalar_rate =
      static_cast<double>(scalar.flops) / std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (peak.isa != "scalar") {
    EXPECT_GT(peak.flops_per_second, 2 * scalar_rate);
  }
}

}  // namespace
}  // namespace ergobench
