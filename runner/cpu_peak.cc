#include "runner/cpu_peak.h"

#include <cpuid.h>
#include <immintrin.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <thread>
#include <utility>
#include <vector>

namespace ergobench {
namespace {

// The chains stay in registers only if the loop over them is unrolled: left as a loop over an
// array, GCC keeps the array in memory and every FMA waits for a store and a load (45% of the
// pipes on an AMD Zen 4).
__attribute__((target("avx512f"))) FmaRun Avx512Kernel(int64_t iterations, float a, float b) {
  const __m512 va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
  __m512 x[kFmaChains];
  for (__m512& v : x) v = _mm512_setzero_ps();
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kFmaChains; ++c) x[c] = _mm512_fmadd_ps(x[c], va, vb);
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
#pragma GCC unroll 12
    for (int c = 0; c < kFmaChains; ++c) x[c] = _mm256_fmadd_ps(x[c], va, vb);
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
#pragma GCC unroll 12
    for (int c = 0; c < kFmaChains; ++c) x[c] = std::fma(x[c], a, b);
  }
  float sum = 0;
  for (float v : x) sum += v;
  return {iterations * kFmaChains * 2, sum / kFmaChains};
}

// Eight dependent additions (or 64-bit multiplications) an iteration; the loop's own counter
// runs beside the chain, so an iteration takes the chain's latency. Returns the cycles: one an
// addition, three a multiplication.
#define ERGOBENCH_EIGHT(op) op "\n\t" op "\n\t" op "\n\t" op "\n\t" op "\n\t" op "\n\t" op "\n\t" op
template <bool kMultiply>
int64_t DependentChain(int64_t iterations) {
  uint64_t x = 1;
  for (int64_t i = 0; i < iterations; ++i) {
    if constexpr (kMultiply) {
      asm volatile(ERGOBENCH_EIGHT("imul %0, %0") : "+r"(x));
    } else {
      asm volatile(ERGOBENCH_EIGHT("add $1, %0") : "+r"(x));
    }
  }
  return iterations * 8 * (kMultiply ? 3 : 1);
}
#undef ERGOBENCH_EIGHT

std::string Hex(int value) {
  char text[16];
  std::snprintf(text, sizeof text, "%Xh", value);
  return text;
}

bool ReadInt(const std::string& path, int* value) {
  std::ifstream in(path);
  return static_cast<bool>(in >> *value);
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

CpuIdentity ReadCpuIdentity() {
  CpuIdentity cpu;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return cpu;
  char vendor[13] = {};
  std::copy_n(reinterpret_cast<const char*>(&ebx), 4, vendor);
  std::copy_n(reinterpret_cast<const char*>(&edx), 4, vendor + 4);
  std::copy_n(reinterpret_cast<const char*>(&ecx), 4, vendor + 8);
  cpu.vendor = vendor;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return cpu;
  const int base_family = static_cast<int>((eax >> 8) & 0xF), base_model = static_cast<int>((eax >> 4) & 0xF);
  const int extended_family = static_cast<int>((eax >> 20) & 0xFF), extended_model = static_cast<int>((eax >> 16) & 0xF);
  cpu.family = base_family == 0xF ? base_family + extended_family : base_family;
  cpu.model = base_family == 0xF || base_family == 0x6 ? (extended_model << 4) + base_model : base_model;
  return cpu;
}

// AMD's optimization guides (software optimization guides for families 17h, 19h and 1Ah) give
// each core's FP pipes; Intel's SKUs of one family differ (Xeon Silver and Gold 5xxx have one
// 512-bit FMA unit, Gold 6xxx and Platinum two), so Intel gets the upper bound.
FmaUnits FmaUnitsOf(const CpuIdentity& cpu, const std::string& isa) {
  FmaUnits units;
  units.isa = isa;
  units.lanes = isa == "avx512f" ? 16 : isa == "avx2+fma" ? 8 : 1;
  units.pipes = 2;
  units.source = "two FMA pipes, the most any x86 core has (an upper bound)";
  if (cpu.vendor != "AuthenticAMD" || isa == "scalar") return units;
  const std::string family = "AMD family " + Hex(cpu.family);
  if (cpu.family == 0x17 && cpu.model < 0x30) {  // Zen, Zen+: two 128-bit FMA pipes
    units = {isa, 8, 1, true, family + " (Zen, Zen+): two 128-bit FMA pipes, one 256-bit FMA a cycle"};
  } else if (cpu.family == 0x17 || (cpu.family == 0x19 && isa == "avx2+fma")) {  // Zen 2, Zen 3
    units = {isa, 8, 2, true, family + " (Zen 2, Zen 3): two 256-bit FMA pipes"};
  } else if (cpu.family == 0x19) {  // Zen 4: AVX-512 on the 256-bit pipes, one 512-bit FMA a cycle
    units = {isa, 16, 1, true, family + " (Zen 4): two 256-bit FMA pipes, one 512-bit FMA a cycle"};
  } else if (cpu.family == 0x1A) {  // Zen 5: 512-bit pipes on the server and desktop parts
    units.source = family + " (Zen 5): two FMA pipes of the widest vector (an upper bound for 256-bit parts)";
  }
  return units;
}

double MeasureCoreClockHz(double seconds, bool multiply) {
  // Batches of about a millisecond (four million cycles), and their median: the maximum picked
  // the batch whose CPU time a virtual machine's accounting cut shortest (2.4% fast, once).
  const int64_t batch = multiply ? int64_t{1} << 17 : int64_t{1} << 19;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::vector<double> rates;
  do {
    const double start = ThreadCpuSeconds();
    const int64_t cycles = multiply ? DependentChain<true>(batch) : DependentChain<false>(batch);
    const double elapsed = ThreadCpuSeconds() - start;
    if (elapsed > 0) rates.push_back(static_cast<double>(cycles) / elapsed);
  } while (std::chrono::steady_clock::now() < end || rates.empty());
  std::nth_element(rates.begin(), rates.begin() + static_cast<std::ptrdiff_t>(rates.size() / 2), rates.end());
  return rates[rates.size() / 2];
}

int CoresAvailable() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::set<std::pair<int, int>> cores;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mask)) continue;
    const std::string topology = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    int package = 0, core = 0;
    if (!ReadInt(topology + "physical_package_id", &package) || !ReadInt(topology + "core_id", &core)) {
      return std::max(1, CPU_COUNT(&mask));
    }
    cores.insert({package, core});
  }
  return std::max<int>(1, static_cast<int>(cores.size()));
}

CpuPeak TheoreticalCpuPeak(int threads, int cores, const FmaUnits& units, double clock_hz) {
  CpuPeak peak;
  peak.isa = units.isa;
  peak.threads = std::max(threads, 1);
  peak.cores = std::max(1, std::min(peak.threads, cores));
  peak.flops_per_second = peak.cores * static_cast<double>(units.flops_per_cycle()) * clock_hz;
  char ghz[32];
  std::snprintf(ghz, sizeof ghz, "%.2f", clock_hz / 1e9);
  peak.basis = std::to_string(peak.cores) + (peak.cores == 1 ? " core" : " cores") + " x " + std::to_string(units.flops_per_cycle()) +
               " FP32 FLOP/cycle (" + units.isa + ") x " + ghz + " GHz measured";
  return peak;
}

double MeasureFmaKernelRate(int threads, double seconds) {
  const std::string isa = WidestFmaIsa();
  threads = std::max(threads, 1);
  // Batches short enough to stop on time (about a millisecond each), x = x * 1 + 0 so that no
  // value grows or turns denormal.
  constexpr int64_t kBatch = 1 << 16;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::vector<double> rates(static_cast<size_t>(threads));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      const double cpu_start = ThreadCpuSeconds();
      int64_t done = 0;
      do {  // at least one batch: a thread that started late still has a rate
        done += RunFmaKernel(isa, kBatch, 1.0f, 0.0f).flops;
      } while (std::chrono::steady_clock::now() < end);
      rates[static_cast<size_t>(t)] = static_cast<double>(done) / std::max(ThreadCpuSeconds() - cpu_start, 1e-9);
    });
  }
  for (std::thread& w : workers) w.join();
  double sum = 0;
  for (double rate : rates) sum += rate;
  return sum;
}

CpuPeak WithinQuota(CpuPeak peak, double quota_cpus) {
  if (quota_cpus >= peak.cores) return peak;
  peak.flops_per_second *= quota_cpus / peak.cores;
  char quota[32];
  std::snprintf(quota, sizeof quota, "%g", quota_cpus);
  peak.basis += std::string(", within a quota of ") + quota + " CPU";
  return peak;
}

}  // namespace ergobench
