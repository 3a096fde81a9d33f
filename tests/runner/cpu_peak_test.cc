#include "runner/cpu_peak.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

constexpr char kEpyc[] =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B12\ncpu MHz\t\t: 2250.000\n"
    "flags\t\t: fpu sse sse2 avx fma avx2 sha_ni\n\nprocessor\t: 1\ncpu MHz\t\t: 1500.000\nflags\t\t: fpu\n";

TEST(CpuPeakTest, CoresTimesClockTimesTheWidestFma) {
  const auto peak = EstimateCpuPeak(kEpyc, 2);
  ASSERT_TRUE(peak.has_value());
  EXPECT_DOUBLE_EQ(peak->flops_per_cycle, 32);
  EXPECT_DOUBLE_EQ(peak->ghz, 2.25);
  EXPECT_DOUBLE_EQ(peak->tflops, 2 * 2.25 * 32 / 1000);  // 0.144 TFLOP/s
  EXPECT_EQ(peak->basis, "2 cores x 2.25 GHz x 32 FLOP/cycle (avx2+fma)");
}

TEST(CpuPeakTest, Avx512AndOlderCores) {
  EXPECT_DOUBLE_EQ(EstimateCpuPeak("cpu MHz : 2000\nflags : avx2 fma avx512f\n", 1)->flops_per_cycle, 64);
  EXPECT_DOUBLE_EQ(EstimateCpuPeak("cpu MHz : 2000\nflags : sse2 avx\n", 1)->flops_per_cycle, 16);
  EXPECT_DOUBLE_EQ(EstimateCpuPeak("cpu MHz : 2000\nflags : sse2\n", 4)->tflops, 4 * 2.0 * 8 / 1000);
}

TEST(CpuPeakTest, NothingToGoOn) {
  EXPECT_FALSE(EstimateCpuPeak("", 2).has_value());
  EXPECT_FALSE(EstimateCpuPeak("flags : avx2\n", 2).has_value());  // aarch64 and VMs may hide the clock
  EXPECT_FALSE(EstimateCpuPeak(kEpyc, 0).has_value());
}

}  // namespace
}  // namespace ergobench
