// ImageDataset: a labelled image set held as uint8, the form every image reader produces
// (CIFAR-10 binary, IDX) and every image task consumes. Pixels are NCHW so that a batch is
// one contiguous slice; conversion to float and normalisation happen per batch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ergobench {

struct ImageDataset {
  int64_t count = 0;
  int64_t channels = 0;
  int64_t height = 0;
  int64_t width = 0;
  int64_t classes = 0;
  std::vector<uint8_t> pixels;  // count × channels × height × width
  std::vector<uint8_t> labels;  // count, each < classes

  int64_t image_size() const { return channels * height * width; }
  const uint8_t* image(int64_t index) const { return pixels.data() + index * image_size(); }
};

}  // namespace ergobench
