#include "runner/cpu_peak.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
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
  std::atomic<int64_t> flops{0};
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::duration<double>(seconds);
  std::vector<std::thread> workers;
  for (int t = 0; t < peak.threads; ++t) {
    workers.emplace_back([&] {
      int64_t done = 0;
      while (std::chrono::steady_clock::now() < end) done += RunFmaKernel(peak.isa, kBatch, 1.0f, 0.0f).flops;
      flops += done;
    });
  }
  for (std::thread& w : workers) w.join();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  peak.flops_per_second = static_cast<double>(flops.load()) / elapsed;
  peak.basis = std::to_string(peak.threads) + (peak.threads == 1 ? " thread" : " threads") + " x " + peak.isa +
               " FMA kernel, measured";
  return peak;
}

}  // namespace ergobench
