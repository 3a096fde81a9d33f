#include "runner/data/cosmo_universes.h"

#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

namespace ergobench {
namespace {

constexpr int64_t kSide = 32;

// The fields' measured spectrum is the one asked for: each wave vector's |fftn(delta)|^2 /
// (side^3 P(|k|)) is an exponential variable of mean 1 (a complex Gaussian's power), so over m
// independent ones (the half-space kz > 0 of 8 fields, to 6 cycles a box) their mean is 1 within
// 1/sqrt(m) a standard deviation; asserted within 4 of them, over all and shell by shell.
TEST(CosmoUniversesTest, AFieldsMeasuredPowerSpectrumIsTheOneAskedFor) {
  const UniverseSpectrum spectrum = SpectrumOf({0, 0.5f, -0.5f, 0});
  const PowerSpectrum power(spectrum, kSide);
  const torch::Tensor k = torch::sqrt(torch::fft::fftfreq(kSide, torch::kFloat64).view({-1, 1, 1}).pow(2) +
                                      torch::fft::fftfreq(kSide, torch::kFloat64).view({1, -1, 1}).pow(2) +
                                      torch::fft::fftfreq(kSide, torch::kFloat64).view({1, 1, -1}).pow(2));
  const torch::Tensor expected = power(k);
  const torch::Tensor kz = torch::fft::fftfreq(kSide, torch::kFloat64).view({1, 1, -1}).expand_as(k);
  // The half-space's own wave vectors, to 6 cycles a box: beyond, exp(-(k / cutoff)^2) leaves
  // less power than float64's rounding of the field.
  const torch::Tensor independent = (kz > 0) & (kz < 0.5) & (k * kSide < 6.5);
  torch::Tensor ratios = torch::zeros({0}, torch::kFloat64);
  torch::Generator generator = at::make_generator<at::CPUGeneratorImpl>(7);
  for (int field = 0; field < 8; ++field) {
    const torch::Tensor delta = GaussianField(spectrum, kSide, generator);
    const torch::Tensor measured = torch::fft::fftn(delta).abs().pow(2) / static_cast<double>(kSide * kSide * kSide);
    ratios = torch::cat({ratios, (measured / expected).masked_select(independent)});
  }
  const double m = static_cast<double>(ratios.numel());
  EXPECT_NEAR(ratios.mean().item<double>(), 1.0, 4 / std::sqrt(m));
  // Shell by shell over the scales the field has power at (the cutoff is 0.09 cycles a cell).
  const torch::Tensor shells = torch::round(k * kSide).masked_select(independent).repeat(8);
  for (int shell = 1; shell <= 6; ++shell) {
    const torch::Tensor in = ratios.masked_select(shells == shell);
    EXPECT_NEAR(in.mean().item<double>(), 1.0, 4 / std::sqrt(static_cast<double>(in.numel()))) << "shell " << shell;
  }
  EXPECT_EQ(power(0.0), 0) << "no power in the mean: the lognormal sets it";
}

// The variance of a field is the mean of P over the cube's wave vectors: sigma^2 by construction.
TEST(CosmoUniversesTest, TheSpectrumsAmplitudeGivesTheFieldSigmaSquared) {
  const UniverseSpectrum spectrum = SpectrumOf({0.4f, -0.2f, 0.7f, 0});
  const PowerSpectrum power(spectrum, kSide);
  const torch::Tensor k = torch::sqrt(torch::fft::fftfreq(kSide, torch::kFloat64).view({-1, 1, 1}).pow(2) +
                                      torch::fft::fftfreq(kSide, torch::kFloat64).view({1, -1, 1}).pow(2) +
                                      torch::fft::fftfreq(kSide, torch::kFloat64).view({1, 1, -1}).pow(2));
  EXPECT_NEAR(power(k).mean().item<double>(), spectrum.sigma * spectrum.sigma, 1e-12);
  EXPECT_DOUBLE_EQ(spectrum.sigma, 0.6 + 0.25 * 0.4f);
  EXPECT_DOUBLE_EQ(spectrum.cutoff, 0.12 + 0.06 * 0.7f);
}

// A universe is a function of (seed, index): the same twice, another index another universe;
// its parameters uniform in [-1, 1]; its counts Poisson around a lognormal of mean kMeanCount,
// growing in contrast from channel to channel (growth > 1).
TEST(CosmoUniversesTest, UniversesAreTheirSeedAndIndexsAndGrowFromChannelToChannel) {
  const UniverseSource source(kSide, 4, 42);
  const int64_t n = 4 * kSide * kSide * kSide;
  std::vector<int16_t> a(n), b(n), c(n);
  source.Counts(5, a.data());
  source.Counts(5, b.data());
  source.Counts(6, c.data());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(source.Parameters(5), source.Parameters(6));
  EXPECT_EQ(source.Parameters(5), UniverseSource(kSide, 4, 42).Parameters(5));
  double sum = 0;
  int64_t samples = 0;
  for (int64_t i = 0; i < 16; ++i) {
    for (float u : source.Parameters(i)) EXPECT_TRUE(u >= -1 && u < 1) << u;
    source.Counts(i, a.data());
    for (int16_t count : a) sum += count;
    samples += n;
    const torch::Tensor channels = torch::from_blob(a.data(), {4, kSide * kSide * kSide}, torch::kInt16).to(torch::kFloat64);
    const torch::Tensor log_variance = torch::log1p(channels).var(1);
    EXPECT_GT(log_variance[3].item<double>(), log_variance[0].item<double>()) << "universe " << i;
  }
  // A cell's mean is kMeanCount exactly; 16 boxes of correlated cells hold it within 2%.
  EXPECT_NEAR(sum / static_cast<double>(samples), kMeanCount, 0.02 * kMeanCount);
}

}  // namespace
}  // namespace ergobench
