// Writes an ImageNet-layout folder of real JPEGs for the resnet50 tests and bench/data_path:
//   make_jpeg_folder DIR CLASSES TRAIN_PER_CLASS VAL_PER_CLASS WIDTH HEIGHT [QUALITY]
// Class c's images are noise around a colour of its own (class 0 red, class 1 blue, then
// further hues), so a model can tell the classes apart in a few steps.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "runner/data/jpeg_codec.h"
#include "runner/data/shard.h"

namespace {

ergobench::RgbImage ClassImage(int label, int width, int height, ergobench::SplitMix64& rng) {
  static const int kHues[][3] = {{220, 40, 40}, {40, 40, 220}, {40, 200, 40}, {200, 200, 40}, {200, 40, 200}};
  const int* base = kHues[label % 5];
  ergobench::RgbImage image{width, height, {}};
  image.pixels.resize(static_cast<size_t>(width) * height * 3);
  for (size_t i = 0; i < image.pixels.size(); ++i) {
    const int noisy = base[i % 3] + static_cast<int>(rng.Below(61)) - 30;
    image.pixels[i] = static_cast<uint8_t>(std::clamp(noisy, 0, 255));
  }
  return image;
}

bool WriteSplit(const std::filesystem::path& dir, int classes, int per_class, int width, int height, int quality,
                ergobench::SplitMix64& rng) {
  for (int c = 0; c < classes; ++c) {
    char name[32];
    std::snprintf(name, sizeof name, "n%08d", c);
    std::filesystem::create_directories(dir / name);
    for (int i = 0; i < per_class; ++i) {
      auto jpeg = ergobench::EncodeJpeg(ClassImage(c, width, height, rng), quality);
      if (!jpeg.ok()) {
        std::fprintf(stderr, "make_jpeg_folder: %s\n", jpeg.status().ToString().c_str());
        return false;
      }
      std::ofstream(dir / name / (std::string(name) + "_" + std::to_string(i) + ".JPEG"), std::ios::binary) << *jpeg;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s DIR CLASSES TRAIN_PER_CLASS VAL_PER_CLASS WIDTH HEIGHT [QUALITY]\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const int classes = std::atoi(argv[2]), train = std::atoi(argv[3]), val = std::atoi(argv[4]);
  const int width = std::atoi(argv[5]), height = std::atoi(argv[6]);
  const int quality = argc > 7 ? std::atoi(argv[7]) : 90;
  ergobench::SplitMix64 rng(1);
  return WriteSplit(dir / "train", classes, train, width, height, quality, rng) &&
                 WriteSplit(dir / "val", classes, val, width, height, quality, rng)
             ? 0
             : 1;
}
