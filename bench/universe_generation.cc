// Where CosmoFlow's synthetic data costs its time: on one thread, N universes of the tiny
// preset (4 x 32^3) whole (UniverseSource::Counts), and the Gaussian field of each alone
// (GaussianField: the noise, two FFTs, the spectrum); the rest of a universe is its four
// channels' lognormal density and torch's Poisson sampling. Prints milliseconds a universe.
// Usage: universe_generation [universes] [side]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <torch/torch.h>

#include "runner/data/cosmo_universes.h"

int main(int argc, char** argv) {
  using namespace ergobench;
  const int64_t count = argc > 1 ? std::atoll(argv[1]) : 50;
  const int64_t side = argc > 2 ? std::atoll(argv[2]) : 32;
  constexpr int64_t kChannels = 4;
  at::set_num_threads(1);
  torch::NoGradGuard no_grad;
  const UniverseSource source(side, kChannels, 1);
  std::vector<int16_t> counts(static_cast<size_t>(kChannels * side * side * side));
  source.Counts(0, counts.data());  // warm-up: FFT plans, allocations
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  for (int64_t i = 1; i <= count; ++i) source.Counts(i, counts.data());
  const double whole = std::chrono::duration<double, std::milli>(Clock::now() - start).count() / count;
  start = Clock::now();
  for (int64_t i = 1; i <= count; ++i) {
    torch::Generator generator = at::make_generator<at::CPUGeneratorImpl>(i);
    GaussianField(SpectrumOf(source.Parameters(i)), side, generator);
  }
  const double field = std::chrono::duration<double, std::milli>(Clock::now() - start).count() / count;
  std::printf("%lld universes of %lld x %lld^3, one thread: %.1f ms a universe\n", static_cast<long long>(count),
              static_cast<long long>(kChannels), static_cast<long long>(side), whole);
  std::printf("  the Gaussian field (noise, two FFTs, the spectrum)  %.1f ms\n", field);
  std::printf("  the channels' density and Poisson sampling           %.1f ms\n", whole - field);
  return 0;
}
