#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "runner/tasks/image_classification.h"

namespace ergobench {
namespace {

// One 3×32×32 image whose pixel at (y, x) is x + 2·y on every channel, so that each
// output value tells which source pixel it came from.
ImageDataset Gradient() {
  ImageDataset d;
  d.count = 1;
  d.channels = 3;
  d.height = 32;
  d.width = 32;
  d.classes = 10;
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < 32; ++y) {
      for (int x = 0; x < 32; ++x) d.pixels.push_back(static_cast<uint8_t>(x + 2 * y));
    }
  }
  d.labels = {7};
  return d;
}

const Normalization kNorm{{0.5f, 0.25f, 0.125f}, {0.5f, 0.25f, 0.5f}};

float Normalized(int value, int channel) { return (value / 255.0f - kNorm.mean[channel]) / kNorm.std[channel]; }

TEST(ImageBatchTest, NormalisesPerChannel) {
  const ImageDataset d = Gradient();
  std::vector<float> out(3 * 32 * 32);
  int64_t label = -1;
  const int64_t index = 0;
  FillImageBatch(d, kNorm, &index, 1, nullptr, out.data(), &label);
  EXPECT_EQ(label, 7);
  for (int c = 0; c < 3; ++c) {
    EXPECT_FLOAT_EQ(out[c * 1024 + 5 * 32 + 9], Normalized(9 + 10, c));
    EXPECT_FLOAT_EQ(out[c * 1024], Normalized(0, c));
  }
}

TEST(ImageBatchTest, CropsWithinFourPixelsAndFlips) {
  const ImageDataset d = Gradient();
  std::vector<float> out(3 * 32 * 32);
  int64_t label = 0;
  const int64_t index = 0;
  SplitMix64 rng(3);
  std::set<int> shifts_x;
  std::set<bool> flips;
  for (int trial = 0; trial < 200; ++trial) {
    FillImageBatch(d, kNorm, &index, 1, &rng, out.data(), &label);
    // Row 16 of channel 0 is the source row 16 + dy, shifted by dx and maybe mirrored:
    // find the shift and mirroring that explain it, with zero padding outside.
    bool explained = false;
    for (int dy = -4; dy <= 4 && !explained; ++dy) {
      for (int dx = -4; dx <= 4 && !explained; ++dx) {
        for (bool flip : {false, true}) {
          bool all = true;
          for (int y = 0; y < 32 && all; ++y) {
            for (int x = 0; x < 32 && all; ++x) {
              const int sy = y + dy;
              const int sx = (flip ? 31 - x : x) + dx;
              const bool inside = sy >= 0 && sy < 32 && sx >= 0 && sx < 32;
              const float expected = Normalized(inside ? sx + 2 * sy : 0, 0);
              all = std::fabs(out[y * 32 + x] - expected) < 1e-5f;
            }
          }
          if (all) {
            explained = true;
            shifts_x.insert(dx);
            flips.insert(flip);
            break;
          }
        }
      }
    }
    ASSERT_TRUE(explained) << "trial " << trial << " is no 4-pixel crop of the padded image";
  }
  EXPECT_EQ(shifts_x.size(), 9u);  // every offset in -4..4 occurs
  EXPECT_EQ(flips.size(), 2u);     // both orientations occur
}

}  // namespace
}  // namespace ergobench
