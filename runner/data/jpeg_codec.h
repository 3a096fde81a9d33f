// JPEG decoding for the ImageNet-layout folders of task resnet50, through Debian's libjpeg-turbo
// (its libjpeg API), and encoding for the tests and bench/data_path that write such folders.
// Decoding asks libjpeg to scale by 1/2, 1/4 or 1/8 in the DCT when the image is much larger
// than the crop it feeds: that is most of what makes a JPEG data path fast, as DALI and
// PIL's draft mode know.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace ergobench {

// Interleaved 8-bit RGB, row-major: pixel (x, y) channel c at (y * width + x) * 3 + c.
struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;
};

// Decodes a JPEG held in memory. Greyscale becomes RGB, and CMYK (a few ImageNet files are
// Adobe CMYK) is converted. `min_side`: the largest DCT scale-down whose shorter side stays
// at least this long (0: full size). `name` only labels errors.
StatusOr<RgbImage> DecodeJpeg(const std::string& bytes, int min_side, const std::string& name);

// Reads and decodes a file.
StatusOr<RgbImage> DecodeJpegFile(const std::string& path, int min_side);

// Baseline JPEG of `image` at `quality` (1-100), 4:4:4 above 90 so solid colours come back exact.
StatusOr<std::string> EncodeJpeg(const RgbImage& image, int quality);

}  // namespace ergobench
