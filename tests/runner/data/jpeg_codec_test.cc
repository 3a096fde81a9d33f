#include "runner/data/jpeg_codec.h"

#include <cstdlib>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

RgbImage Solid(int width, int height, uint8_t r, uint8_t g, uint8_t b) {
  RgbImage image{width, height, {}};
  for (int i = 0; i < width * height; ++i) image.pixels.insert(image.pixels.end(), {r, g, b});
  return image;
}

int MaxDifference(const RgbImage& a, const RgbImage& b) {
  int most = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) most = std::max(most, std::abs(a.pixels[i] - b.pixels[i]));
  return most;
}

TEST(JpegCodecTest, SolidColoursComeBackWithinRounding) {
  const RgbImage red = Solid(64, 48, 200, 30, 60);
  auto bytes = EncodeJpeg(red, 100);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ(bytes->substr(0, 2), "\xFF\xD8");  // SOI
  auto back = DecodeJpeg(*bytes, 0, "red.jpg");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->width, 64);
  EXPECT_EQ(back->height, 48);
  ASSERT_EQ(back->pixels.size(), red.pixels.size());
  EXPECT_LE(MaxDifference(*back, red), 2);
}

TEST(JpegCodecTest, ScalesDownInTheDctButNeverBelowTheSideAsked) {
  auto bytes = EncodeJpeg(Solid(800, 600, 10, 120, 240), 90);
  ASSERT_TRUE(bytes.ok());
  // 600 / 2 = 300 >= 256 but 600 / 4 = 150 < 256: half size.
  auto half = DecodeJpeg(*bytes, 256, "x");
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->width, 400);
  EXPECT_EQ(half->height, 300);
  auto eighth = DecodeJpeg(*bytes, 64, "x");  // 600 / 8 = 75
  ASSERT_TRUE(eighth.ok());
  EXPECT_EQ(eighth->width, 100);
  EXPECT_EQ(eighth->height, 75);
  auto full = DecodeJpeg(*bytes, 599, "x");
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->width, 800);
  EXPECT_LE(MaxDifference(*eighth, Solid(100, 75, 10, 120, 240)), 3);
}

TEST(JpegCodecTest, BrokenDataIsAnErrorNamingTheFile) {
  auto bytes = EncodeJpeg(Solid(32, 32, 1, 2, 3), 80);
  ASSERT_TRUE(bytes.ok());
  auto truncated = DecodeJpeg(bytes->substr(0, 20), 0, "train/n01/a.JPEG");
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("train/n01/a.JPEG"), std::string::npos) << truncated.status().ToString();
  auto not_jpeg = DecodeJpeg("GIF89a....", 0, "b.JPEG");
  ASSERT_FALSE(not_jpeg.ok());
  EXPECT_NE(not_jpeg.status().message().find("b.JPEG"), std::string::npos);
  auto missing = DecodeJpegFile("/nonexistent/c.JPEG", 0);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/c.JPEG"), std::string::npos);
}

}  // namespace
}  // namespace ergobench
