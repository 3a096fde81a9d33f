// The data path must never be the bottleneck: on one core it should turn stored samples
// into training batches at least 5 times faster than the model trains on all cores. This
// measures FillImageBatch (uint8 → normalised float, with CIFAR's crop and flip) for
// CIFAR-10- and Fashion-MNIST-shaped data on one thread, and prints the figures to set
// against the training images/s of bench/resnet20_vs_pytorch.sh.
#include <chrono>
#include <cstdio>
#include <vector>

#include "runner/tasks/image_classification.h"

namespace ergobench {
namespace {

double ImagesPerSecond(const ImageDataset& data, const Normalization& norm, bool augment) {
  constexpr int64_t kBatch = 128;
  std::vector<float> images(static_cast<size_t>(kBatch * data.image_size()));
  std::vector<int64_t> labels(kBatch);
  std::vector<int64_t> order = ShardIndices(data.count, 1, 0, 1, 42);
  SplitMix64 rng(1);
  const auto start = std::chrono::steady_clock::now();
  int64_t done = 0;
  for (int round = 0; round < 3; ++round) {
    for (int64_t at = 0; at + kBatch <= data.count; at += kBatch) {
      FillImageBatch(data, norm, order.data() + at, kBatch, augment ? &rng : nullptr, images.data(), labels.data());
      done += kBatch;
    }
  }
  return done / std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace
}  // namespace ergobench

int main() {
  using namespace ergobench;
  const ImageDataset cifar = SyntheticImages(50000, 3, 32, 10, 1);
  const ImageDataset fmnist = SyntheticImages(60000, 1, 28, 10, 2);
  const Normalization cifar_norm{{0.4914f, 0.4822f, 0.4465f}, {0.2470f, 0.2435f, 0.2616f}};
  const Normalization fmnist_norm{{0.2860f}, {0.3530f}};
  std::printf("data path, one thread, batches of 128\n");
  std::printf("  CIFAR-10, crop + flip   %10.0f images/s\n", ImagesPerSecond(cifar, cifar_norm, true));
  std::printf("  CIFAR-10, no augment    %10.0f images/s\n", ImagesPerSecond(cifar, cifar_norm, false));
  std::printf("  Fashion-MNIST           %10.0f images/s\n", ImagesPerSecond(fmnist, fmnist_norm, false));
  std::printf("target: at least 5x the training images/s of the same task on all cores\n");
  return 0;
}
