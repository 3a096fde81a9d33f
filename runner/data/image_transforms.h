// The ImageNet data path's geometry and pixels, as torchvision and MLPerf's ResNet reference
// define them: a random resized crop and horizontal flip for training, a centre crop of
// 0.875 of the shorter side (resize to 256, crop 224) for evaluation; bilinear resampling
// straight into the normalised CHW floats the model takes, in one pass per image.
#pragma once

#include "runner/data/jpeg_codec.h"
#include "runner/data/shard.h"

namespace ergobench {

struct Normalization {
  float mean[3];
  float std[3];
};

// ImageNet's per-channel statistics, on pixels scaled to [0, 1].
inline constexpr Normalization kImageNetNormalization = {{0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}};

// A rectangle of the source image, in pixels.
struct CropBox {
  double x = 0;
  double y = 0;
  double width = 0;
  double height = 0;
};

// torchvision's RandomResizedCrop: up to 10 draws of an area fraction in [0.08, 1] and an
// aspect ratio log-uniform in [3/4, 4/3] for a box that fits; else the centre crop of the
// largest box whose ratio is in range.
CropBox RandomResizedCropBox(int width, int height, SplitMix64& rng);

// Evaluation's centred square of 0.875 of the shorter side.
CropBox CenterCropBox(int width, int height);

// Samples `box` of `image` onto a side × side grid (bilinear, pixel centres aligned),
// mirrored left to right when `flip`, normalised, into out[c][y][x].
void ResampleCrop(const RgbImage& image, const CropBox& box, int side, bool flip, const Normalization& norm,
                  float* out);

}  // namespace ergobench
