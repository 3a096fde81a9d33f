#include "runner/data/image_transforms.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ergobench {
namespace {

double Uniform(SplitMix64& rng) { return static_cast<double>(rng.Next() >> 11) * 0x1.0p-53; }

// One axis of the resampling: for each output index, the two source indices and the weight of
// the second.
struct Taps {
  std::vector<int> lo, hi;
  std::vector<float> weight;
};

Taps AxisTaps(double start, double length, int side, int limit) {
  Taps taps;
  taps.lo.resize(side);
  taps.hi.resize(side);
  taps.weight.resize(side);
  const double step = length / side;
  for (int i = 0; i < side; ++i) {
    const double s = std::clamp(start + (i + 0.5) * step - 0.5, 0.0, static_cast<double>(limit - 1));
    const int lo = static_cast<int>(s);
    taps.lo[i] = lo;
    taps.hi[i] = std::min(lo + 1, limit - 1);
    taps.weight[i] = static_cast<float>(s - lo);
  }
  return taps;
}

}  // namespace

CropBox RandomResizedCropBox(int width, int height, SplitMix64& rng) {
  const double area = static_cast<double>(width) * height;
  const double log_low = std::log(3.0 / 4.0), log_high = std::log(4.0 / 3.0);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target = area * (0.08 + Uniform(rng) * (1.0 - 0.08));
    const double ratio = std::exp(log_low + Uniform(rng) * (log_high - log_low));
    const int w = static_cast<int>(std::lround(std::sqrt(target * ratio)));
    const int h = static_cast<int>(std::lround(std::sqrt(target / ratio)));
    if (w > 0 && h > 0 && w <= width && h <= height) {
      const int x = static_cast<int>(rng.Below(static_cast<uint64_t>(width - w + 1)));
      const int y = static_cast<int>(rng.Below(static_cast<uint64_t>(height - h + 1)));
      return {static_cast<double>(x), static_cast<double>(y), static_cast<double>(w), static_cast<double>(h)};
    }
  }
  double w = width, h = height;
  const double ratio = w / h;
  if (ratio < 3.0 / 4.0) h = std::round(w / (3.0 / 4.0));
  if (ratio > 4.0 / 3.0) w = std::round(h * (4.0 / 3.0));
  return {(width - w) / 2, (height - h) / 2, w, h};
}

CropBox CenterCropBox(int width, int height) {
  const double side = 0.875 * std::min(width, height);
  return {(width - side) / 2, (height - side) / 2, side, side};
}

void ResampleCrop(const RgbImage& image, const CropBox& box, int side, bool flip, const Normalization& norm,
                  float* out) {
  const Taps xs = AxisTaps(box.x, box.width, side, image.width);
  const Taps ys = AxisTaps(box.y, box.height, side, image.height);
  const size_t stride = static_cast<size_t>(image.width) * 3;
  const size_t plane = static_cast<size_t>(side) * side;
  float scale[3], offset[3];
  for (int c = 0; c < 3; ++c) {
    scale[c] = 1.0f / (255.0f * norm.std[c]);
    offset[c] = -norm.mean[c] / norm.std[c];
  }
  for (int y = 0; y < side; ++y) {
    const uint8_t* top = image.pixels.data() + ys.lo[y] * stride;
    const uint8_t* bottom = image.pixels.data() + ys.hi[y] * stride;
    const float wy = ys.weight[y];
    for (int x = 0; x < side; ++x) {
      const int sx = flip ? side - 1 - x : x;
      const size_t l = static_cast<size_t>(xs.lo[sx]) * 3, r = static_cast<size_t>(xs.hi[sx]) * 3;
      const float wx = xs.weight[sx];
      for (int c = 0; c < 3; ++c) {
        const float upper = top[l + c] + wx * (top[r + c] - top[l + c]);
        const float lower = bottom[l + c] + wx * (bottom[r + c] - bottom[l + c]);
        out[c * plane + static_cast<size_t>(y) * side + x] = (upper + wy * (lower - upper)) * scale[c] + offset[c];
      }
    }
  }
}

}  // namespace ergobench
