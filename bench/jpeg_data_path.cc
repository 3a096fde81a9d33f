// Task resnet50's JPEG data path against its training speed: writes ImageNet-like JPEGs (500 x
// 375, the ImageNet mean, quality 90) and times the task's own sample code
// (runner/data/imagenet_samples.h) through the BatchPrefetcher, as training and evaluation
// use them, on 1 and 2 threads.
//   jpeg_data_path [TRAINING_IMAGES_PER_SECOND]
// With the training rate of the same machine (ergobench run of task resnet50), it prints the
// margin: how many times faster the data path is than the model consumes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runner/data/batch_prefetcher.h"
#include "runner/data/imagenet_samples.h"
#include "runner/data/jpeg_codec.h"

namespace ergobench {
namespace {

constexpr int kImages = 256;
constexpr int kSide = 224;

// Smooth shading with a little noise: photographs compress to about what ImageNet's do
// (110 KB on average), where pure noise would not.
RgbImage PhotoLike(int width, int height, SplitMix64& rng) {
  RgbImage image{width, height, std::vector<uint8_t>(static_cast<size_t>(width) * height * 3)};
  const double fx = 0.01 + 0.03 * static_cast<double>(rng.Below(100)) / 100, fy = 0.02;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c) {
        const double v = 128 + 90 * std::sin(fx * x * (c + 1) + fy * y) + static_cast<double>(rng.Below(25)) - 12;
        image.pixels[(static_cast<size_t>(y) * width + x) * 3 + c] = static_cast<uint8_t>(std::clamp(v, 0.0, 255.0));
      }
    }
  }
  return image;
}

std::vector<std::string> WriteImages(const std::filesystem::path& dir, double* mean_bytes) {
  std::filesystem::create_directories(dir);
  SplitMix64 rng(3);
  std::vector<std::string> paths;
  double bytes = 0;
  for (int i = 0; i < kImages; ++i) {
    const std::string jpeg = *EncodeJpeg(PhotoLike(500, 375, rng), 90);
    paths.push_back((dir / (std::to_string(i) + ".JPEG")).string());
    std::ofstream(paths.back(), std::ios::binary) << jpeg;
    bytes += static_cast<double>(jpeg.size());
  }
  *mean_bytes = bytes / kImages;
  return paths;
}

// Images per second through a prefetcher of `threads`, batches of 32, three passes.
double ImagesPerSecond(const std::vector<std::string>& paths, int threads, bool training) {
  std::vector<int64_t> order;
  for (int pass = 0; pass < 3; ++pass) {
    for (int64_t i = 0; i < kImages; ++i) order.push_back(i);
  }
  const auto start = std::chrono::steady_clock::now();
  BatchPrefetcher prefetcher(order, 32, 3 * kSide * kSide, threads, 3,
                             [&](int64_t sample, int64_t position, float* out, int64_t* label) {
                               *label = 0;
                               const std::string& path = paths[static_cast<size_t>(sample)];
                               return training ? FillTrainingSample(path, kSide, true, SplitMix64(position), out)
                                               : FillEvaluationSample(path, kSide, out);
                             });
  int64_t done = 0;
  for (auto batch = prefetcher.Next(); batch.ok(); batch = prefetcher.Next()) done += batch->size;
  return static_cast<double>(done) / std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace
}  // namespace ergobench

int main(int argc, char** argv) {
  using namespace ergobench;
  const double training = argc > 1 ? std::atof(argv[1]) : 0;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "ergobench-jpeg-data-path";
  double mean_bytes = 0;
  const std::vector<std::string> paths = WriteImages(dir, &mean_bytes);
  std::printf("JPEG data path of task resnet50: %d images of 500x375, %.0f KB on average, to %dx%d\n", kImages,
              mean_bytes / 1024, kSide, kSide);
  for (int threads : {1, 2}) {
    const double train = ImagesPerSecond(paths, threads, true);
    const double eval = ImagesPerSecond(paths, threads, false);
    std::printf("  %d thread%s  training %7.0f images/s   evaluation %7.0f images/s", threads, threads > 1 ? "s" : " ",
                train, eval);
    if (training > 0) std::printf("   margin over training: %.1fx", train / training);
    std::printf("\n");
  }
  std::filesystem::remove_all(dir);
  return 0;
}
