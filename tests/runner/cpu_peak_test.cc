#include "runner/cpu_peak.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

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

// The calling thread, and the threads it starts, on one CPU of those it may use; the old mask
// back when it goes.
class OnOneCpu {
 public:
  OnOneCpu() {
    pthread_getaffinity_np(pthread_self(), sizeof old_, &old_);
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &old_)) {
        CPU_SET(cpu, &one);
        break;
      }
    }
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
  }
  ~OnOneCpu() { pthread_setaffinity_np(pthread_self(), sizeof old_, &old_); }

 private:
  cpu_set_t old_;
};

// A thread spinning on the measuring thread's one CPU takes half its time: the kernel's wall
// rate halves, the core's does not, and the peak is the core's (measured off the wall clock, a
// language model beside a test suite once came out at MFU 1.52).
// Each rate is the best of three: another process on the sibling hyperthread (ctest runs two
// binaries at once on a 2-vCPU machine) slows the core's FLOPs per CPU second, once by 21%.
double BestCpuPeakOfThree() {
  double best = 0;
  for (int i = 0; i < 3; ++i) best = std::max(best, MeasureCpuPeak(1, 0.1).flops_per_second);
  return best;
}

TEST(CpuPeakTest, AThreadSharingTheCoreLeavesThePeakAsItWas) {
  OnOneCpu pinned;
  const double alone = BestCpuPeakOfThree();
  std::atomic<bool> stop{false};
  double competitor_cpu = 0;
  std::thread competitor([&] {
    const double start = ThreadCpuSeconds();
    while (!stop.load(std::memory_order_relaxed)) {
    }
    competitor_cpu = ThreadCpuSeconds() - start;
  });
  const auto start = std::chrono::steady_clock::now();
  const double shared = BestCpuPeakOfThree();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stop = true;
  competitor.join();
  EXPECT_GT(competitor_cpu, 0.25 * wall) << "the competitor got its share of the CPU";
  EXPECT_NEAR(shared / alone, 1.0, 0.15) << "alone " << alone << " FLOP/s, shared " << shared;
}

// A quota of q CPUs lets t threads run q CPUs' time: the peak scales by q / t where q < t.
TEST(CpuPeakTest, AQuotaBelowTheThreadsScalesThePeakAndSaysSo) {
  CpuPeak peak;
  peak.flops_per_second = 100e9;
  peak.threads = 2;
  peak.isa = "avx512f";
  peak.basis = "2 threads x avx512f FMA kernel, measured";
  const CpuPeak quarter = WithinQuota(peak, 0.5);
  EXPECT_DOUBLE_EQ(quarter.flops_per_second, 25e9);
  EXPECT_EQ(quarter.basis, "2 threads x avx512f FMA kernel, measured, within a quota of 0.5 CPU");
  const CpuPeak enough = WithinQuota(peak, 2);
  EXPECT_DOUBLE_EQ(enough.flops_per_second, 100e9);
  EXPECT_EQ(enough.basis, peak.basis);
  EXPECT_DOUBLE_EQ(WithinQuota(peak, 1.5).flops_per_second, 75e9);
}

}  // namespace
}  // namespace ergobench
