#include "runner/cpu_peak.h"

#include <immintrin.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

namespace ergobench {
namespace {

__attribute__((target("avx512f"))) FmaRun Avx512Kernel(int64_t iterations, float a, float b) {
  const __m512 va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
  __m512 x[kFmaChains];
  for (__m512& v : x) v = _mm512_setzero_ps();
  for (int64_t i = 0; i < iterations; ++i) {
    for (__m512& v : x) v = _mm512_fmadd_ps(v, va, vb);
  }
  __m512 sum = x[0];
  for (int c = 1; c < kFmaChains; ++c) sum = _mm512_add_ps(sum, x[c]);  // keeps every chain live
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  return {iterations * kFmaChains * 16 * 2, lanes[0] / kFmaChains};
}

__attribute__((target("avx2,fma"))) FmaRun Avx2Kernel(int64_t iterations, float a, float b) {
  const __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
  __m256 x[kFmaChains];
  for (__m256& v : x) v = _mm256_setzero_ps();
  for (int64_t i = 0; i < iterations; ++i) {
    for (__m256& v : x) v = _mm256_fmadd_ps(v, va, vb);
  }
  __m256 sum = x[0];
  for (int c = 1; c < kFmaChains; ++c) sum = _mm256_add_ps(sum, x[c]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  return {iterations * kFmaChains * 8 * 2, lanes[0] / kFmaChains};
}

FmaRun ScalarKernel(int64_t iterations, float a, float b) {
  float x[kFmaChains] = {};
  for (int64_t i = 0; i < iterations; ++i) {
    for (float& v : x) v = std::fma(v, a, b);
  }
  float sum = 0;
  for (float v : x) sum += v;
  return {iterations * kFmaChains * 2, sum / kFmaChains};
}

}  // namespace

double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

std::string WidestFmaIsa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512f";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "avx2+fma";
  return "scalar";
}

FmaRun RunFmaKernel(const std::string& isa, int64_t iterations, float a, float b) {
  if (isa == "avx512f") return Avx512Kernel(iterations, a, b);
  if (isa == "avx2+fma") return Avx2Kernel(iterations, a, b);
  return ScalarKernel(iterations, a, b);
}

CpuPeak MeasureCpuPeak(int threads, double seconds) {
  CpuPeak peak;
  peak.isa = WidestFmaIsa();
  peak.threads = std::max(threads, 1);
  // Batches short enough to stop on time (about a millisecond each), x = x * 1 + 0 so that no
  // value grows or turns denormal.
  constexpr int64_t kBatch = 1 << 16;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::vector<double> rates(peak.threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < peak.threads; ++t) {
    workers.emplace_back([&, t] {
      const double cpu_start = ThreadCpuSeconds();
      int64_t done = 0;
      do {  // at least one batch: a thread that started late still has a rate
        done += RunFmaKernel(peak.isa, kBatch, 1.0f, 0.0f).flops;
      } while (std::chrono::steady_clock::now() < end);
      rates[t] = static_cast<double>(done) / std::max(ThreadCpuSeconds() - cpu_start, 1e-9);
    });
  }
  for (std::thread& w : workers) w.join();
  for (double rate : rates) peak.flops_per_second += rate;
  peak.basis = std::to_string(peak.threads) + (peak.threads == 1 ? " thread" : " threads") + " x " + peak.isa +
               " FMA kernel, measured";
  return peak;
}

CpuPeak WithinQuota(CpuPeak peak, double quota_cpus) {
  if (quota_cpus >= peak.threads) return peak;
  peak.flops_per_second *= quota_cpus / peak.threads;
  char quota[32];
  std::snprintf(quota, sizeof quota, "%g", quota_cpus);
  peak.basis += std::string(", within a quota of ") + quota + " CPU";
  return peak;
}

}  // namespace ergobench
