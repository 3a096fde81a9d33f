#include "runner/data/image_transforms.h"

#include <cmath>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

constexpr Normalization kUnit = {{0, 0, 0}, {1, 1, 1}};

// Left half red, right half blue.
RgbImage Halves(int width, int height) {
  RgbImage image{width, height, std::vector<uint8_t>(static_cast<size_t>(width) * height * 3)};
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) image.pixels[(static_cast<size_t>(y) * width + x) * 3 + (x < width / 2 ? 0 : 2)] = 255;
  }
  return image;
}

TEST(ImageTransformsTest, CenterCropIsSevenEighthsOfTheShorterSideInTheMiddle) {
  const CropBox box = CenterCropBox(400, 300);
  EXPECT_DOUBLE_EQ(box.width, 262.5);
  EXPECT_DOUBLE_EQ(box.height, 262.5);
  EXPECT_DOUBLE_EQ(box.x, 68.75);
  EXPECT_DOUBLE_EQ(box.y, 18.75);
}

TEST(ImageTransformsTest, ResampledPixelsKeepTheirPlaceColourAndNormalisation) {
  const RgbImage image = Halves(400, 300);
  std::vector<float> out(3 * 224 * 224);
  ResampleCrop(image, CenterCropBox(400, 300), 224, false, kUnit, out.data());
  const auto at = [&](int c, int y, int x) { return out[(static_cast<size_t>(c) * 224 + y) * 224 + x]; };
  EXPECT_FLOAT_EQ(at(0, 0, 0), 1.0f);  // red on the left
  EXPECT_FLOAT_EQ(at(2, 0, 0), 0.0f);
  EXPECT_FLOAT_EQ(at(0, 223, 223), 0.0f);  // blue on the right
  EXPECT_FLOAT_EQ(at(2, 223, 223), 1.0f);
  EXPECT_FLOAT_EQ(at(1, 100, 100), 0.0f);  // no green anywhere
  // The edge sits at source x = 200, the box's middle: between output columns 111 and 112.
  EXPECT_FLOAT_EQ(at(0, 50, 110), 1.0f);
  EXPECT_FLOAT_EQ(at(0, 50, 113), 0.0f);
  // Flipped: blue on the left.
  ResampleCrop(image, CenterCropBox(400, 300), 224, true, kUnit, out.data());
  EXPECT_FLOAT_EQ(at(2, 0, 0), 1.0f);
  EXPECT_FLOAT_EQ(at(0, 223, 223), 1.0f);
  // ImageNet's statistics: a pure red pixel is (1 - 0.485) / 0.229 in the red plane.
  ResampleCrop(image, CenterCropBox(400, 300), 224, false, kImageNetNormalization, out.data());
  EXPECT_NEAR(at(0, 0, 0), (1 - 0.485) / 0.229, 1e-5);
  EXPECT_NEAR(at(1, 0, 0), -0.456 / 0.224, 1e-5);
}

TEST(ImageTransformsTest, RandomResizedCropsFitAndKeepTorchvisionsRanges) {
  SplitMix64 rng(7);
  double smallest = 1, largest = 0;
  for (int i = 0; i < 2000; ++i) {
    const CropBox b = RandomResizedCropBox(500, 375, rng);
    ASSERT_GE(b.x, 0);
    ASSERT_GE(b.y, 0);
    ASSERT_LE(b.x + b.width, 500);
    ASSERT_LE(b.y + b.height, 375);
    const double area = b.width * b.height / (500.0 * 375.0);
    smallest = std::min(smallest, area);
    largest = std::max(largest, area);
    ASSERT_GE(area, 0.079) << i;
    // Rounding w and h to whole pixels moves the ratio a little past 3/4 and 4/3.
    ASSERT_GE(b.width / b.height, 0.75 * 0.97) << i;
    ASSERT_LE(b.width / b.height, 4.0 / 3.0 * 1.03) << i;
  }
  EXPECT_LT(smallest, 0.1);  // the whole range is drawn
  EXPECT_GT(largest, 0.7);
  // A strip far narrower than 3/4 falls back to the largest in-range centre box.
  SplitMix64 strip(1);
  const CropBox fallback = RandomResizedCropBox(10, 1000, strip);
  EXPECT_DOUBLE_EQ(fallback.width, 10);
  EXPECT_DOUBLE_EQ(fallback.height, 13);
  EXPECT_DOUBLE_EQ(fallback.y, (1000 - 13) / 2.0);
}

}  // namespace
}  // namespace ergobench
