// Synthetic universes for CosmoFlow (runner/models/cosmoflow.h): dark-matter volumes whose
// statistics depend on four parameters, so that regressing the parameters from a volume is
// learnable and a target mean absolute error is a real goal, with no data set to download.
//
// A universe is a Gaussian random field delta with the power spectrum
//   P(k) = A k^slope exp(-(k / cutoff)^2)      (k in cycles per cell, P(0) = 0)
// with A such that delta's variance is sigma^2; channel c (the reference's four redshifts) is
// the field grown by growth^(c - 1.5), made a lognormal density exp(d - s^2/2) of mean 1 and
// sampled as Poisson particle counts at kMeanCount a cell: int16 counts, as the reference's
// preprocessed volumes hold, which the task reads through log1p as the reference does. The
// four parameters are drawn uniformly in [-1, 1] (the reference scales its targets to about
// that range) and mapped to sigma, slope, cutoff and growth (SpectrumOf). Every universe is a
// function of (seed, index) alone, through torch's CPU generator. Only torch translation units
// include this header.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <torch/types.h>

namespace ergobench {

inline constexpr int kUniverseParameters = 4;
// A data set's validation universes are indexed from here, its training ones from 0: the same
// source, other universes (the task and ergobench-universes agree on it).
inline constexpr int64_t kValidationUniverseIndexBase = int64_t{1} << 40;
inline constexpr double kMeanCount = 8;  // particles a cell

// The field's physics, from the four scaled parameters.
struct UniverseSpectrum {
  double sigma = 0;   // delta's standard deviation before growth
  double slope = 0;   // of the power law
  double cutoff = 0;  // cycles per cell
  double growth = 0;  // the amplitude's factor from one channel to the next
};

using ScaledParameters = std::array<float, kUniverseParameters>;

// sigma 0.6 + 0.25 u0, slope -2 + 0.75 u1, cutoff 0.12 + 0.06 u2, growth 1.2 + 0.15 u3.
UniverseSpectrum SpectrumOf(const ScaledParameters& u);

// P(k) of `spectrum` on a cube of `side` cells, for k in cycles per cell: normalized so that the
// field's variance, the mean of P over the cube's side^3 wave vectors, is sigma^2.
class PowerSpectrum {
 public:
  PowerSpectrum(const UniverseSpectrum& spectrum, int64_t side);
  double operator()(double k) const;
  torch::Tensor operator()(const torch::Tensor& k) const;  // of each element, float64

 private:
  UniverseSpectrum spectrum_;
  double amplitude_ = 0;
};

// |k| in cycles per cell of each of rfftn's wave vectors of a cube of `side`: [side, side, side/2+1].
torch::Tensor RfftWaveNumbers(int64_t side);

// A Gaussian random field of `spectrum` on a cube of `side`, float64 [side, side, side]:
// white noise shaped by sqrt(P) in Fourier space, so that E|fftn(delta)(k)|^2 = side^3 P(|k|).
torch::Tensor GaussianField(const UniverseSpectrum& spectrum, int64_t side, torch::Generator& generator);

// Universes of one side and channel count, each of (seed, index): counts [channels, side^3]
// int16, and the scaled parameters it was drawn from.
class UniverseSource {
 public:
  UniverseSource(int64_t side, int64_t channels, uint64_t seed) : side_(side), channels_(channels), seed_(seed) {}
  ScaledParameters Parameters(int64_t index) const;
  // Writes channels x side^3 counts to `out`.
  void Counts(int64_t index, int16_t* out) const;

 private:
  int64_t side_;
  int64_t channels_;
  uint64_t seed_;
};

}  // namespace ergobench
