#include "runner/data/cosmo_universes.h"

#include <cmath>
#include <cstring>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "runner/data/shard.h"

namespace ergobench {
namespace {

// A stream per universe: its parameters, and torch's generator for its field and counts.
uint64_t UniverseSeed(uint64_t seed, int64_t index, uint64_t purpose) {
  SplitMix64 mix(seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(index) * 2 + purpose);
  return mix.Next();
}

// P's shape before its amplitude; 0 at k = 0, the mean the lognormal sets.
torch::Tensor Shape(const UniverseSpectrum& s, const torch::Tensor& k) {
  const torch::Tensor shaped = k.pow(s.slope) * torch::exp(-(k / s.cutoff).pow(2));
  return torch::where(k > 0, shaped, torch::zeros_like(k));
}

// rfftn holds each wave vector of the full cube once, but for the planes kz = 0 and (even side)
// the Nyquist one, twice the others (their conjugates are left out).
torch::Tensor HermitianWeights(int64_t side) {
  torch::Tensor w = torch::full({side, side, side / 2 + 1}, 2.0, torch::kFloat64);
  w.select(2, 0).fill_(1);
  if (side % 2 == 0) w.select(2, side / 2).fill_(1);
  return w;
}

}  // namespace

UniverseSpectrum SpectrumOf(const ScaledParameters& u) {
  return {0.6 + 0.25 * u[0], -2.0 + 0.75 * u[1], 0.12 + 0.06 * u[2], 1.2 + 0.15 * u[3]};
}

torch::Tensor RfftWaveNumbers(int64_t side) {
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  const torch::Tensor full = torch::fft::fftfreq(side, f64);
  const torch::Tensor half = torch::fft::rfftfreq(side, f64);
  return torch::sqrt(full.view({side, 1, 1}).pow(2) + full.view({1, side, 1}).pow(2) + half.view({1, 1, -1}).pow(2));
}

namespace {

// A: Var(delta) = (1 / side^3) sum over the full cube of P(k) = sigma^2, from P's shape on rfftn's grid.
double Amplitude(const UniverseSpectrum& spectrum, const torch::Tensor& shape_on_rfft_grid, int64_t side) {
  const double sum = (shape_on_rfft_grid * HermitianWeights(side)).sum().item<double>();
  return spectrum.sigma * spectrum.sigma * static_cast<double>(side * side * side) / sum;
}

}  // namespace

PowerSpectrum::PowerSpectrum(const UniverseSpectrum& spectrum, int64_t side)
    : spectrum_(spectrum), amplitude_(Amplitude(spectrum, Shape(spectrum, RfftWaveNumbers(side)), side)) {}

double PowerSpectrum::operator()(double k) const {
  if (k <= 0) return 0;
  return amplitude_ * std::pow(k, spectrum_.slope) * std::exp(-(k / spectrum_.cutoff) * (k / spectrum_.cutoff));
}

torch::Tensor PowerSpectrum::operator()(const torch::Tensor& k) const { return Shape(spectrum_, k) * amplitude_; }

torch::Tensor GaussianField(const UniverseSpectrum& spectrum, int64_t side, torch::Generator& generator) {
  const torch::Tensor noise = torch::randn({side, side, side}, generator, torch::kFloat64);
  // White noise of unit variance has E|rfftn|^2 = side^3; shaped by sqrt(P), irfftn's 1/side^3
  // leaves E|fftn(delta)|^2 = side^3 P (PowerSpectrum's, its shape computed once here).
  const torch::Tensor shape = Shape(spectrum, RfftWaveNumbers(side));
  const torch::Tensor amplitude = torch::sqrt(shape * Amplitude(spectrum, shape, side));
  return torch::fft::irfftn(torch::fft::rfftn(noise) * amplitude, torch::IntArrayRef({side, side, side}));
}

ScaledParameters UniverseSource::Parameters(int64_t index) const {
  SplitMix64 rng(UniverseSeed(seed_, index, 0));
  ScaledParameters u;
  for (float& p : u) p = static_cast<float>(static_cast<double>(rng.Next() >> 11) * 0x1.0p-53 * 2 - 1);
  return u;
}

void UniverseSource::Counts(int64_t index, int16_t* out) const {
  torch::NoGradGuard no_grad;
  const UniverseSpectrum spectrum = SpectrumOf(Parameters(index));
  torch::Generator generator = at::make_generator<at::CPUGeneratorImpl>(UniverseSeed(seed_, index, 1));
  const torch::Tensor delta = GaussianField(spectrum, side_, generator);
  for (int64_t c = 0; c < channels_; ++c) {
    const double scale = std::pow(spectrum.growth, static_cast<double>(c) - 1.5);
    const double s = spectrum.sigma * scale;
    const torch::Tensor rate = torch::exp(delta * scale - s * s / 2) * kMeanCount;
    const torch::Tensor counts = torch::poisson(rate, generator).clamp_max(32767).to(torch::kInt16).contiguous();
    std::memcpy(out + c * counts.numel(), counts.data_ptr<int16_t>(), static_cast<size_t>(counts.numel()) * sizeof(int16_t));
  }
}

}  // namespace ergobench
