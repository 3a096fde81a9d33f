// Image classification by synchronous data-parallel SGD, the engine of task 1a (ResNet-20
// on CIFAR-10) and task fmnist (a small CNN on Fashion-MNIST). Each step every rank
// trains on its own shard, the gradients are all-reduced and averaged once the operation
// completes, and every rank takes the same optimizer step. Timing follows MLPerf: the
// clock starts before the data is first read and stops at the first evaluation that
// reaches the goal.
#pragma once

#include <memory>
#include <string>

#include "runner/data/image_dataset.h"
#include "runner/data/image_transforms.h"
#include "runner/data/shard.h"
#include "runner/tasks/task.h"

namespace ergobench {

// Turns uint8 samples into a normalised float NCHW batch, with CIFAR's random crop of the
// 4-pixel zero-padded image and horizontal flip when `augment` is given. Plain loops: this
// is the data path, and it must stay far from being the bottleneck (bench/data_path).
void FillImageBatch(const ImageDataset& data, const Normalization& norm, const int64_t* indices, int64_t n,
                    SplitMix64* augment, float* out_images, int64_t* out_labels);

// Random pixels and labels of the given shape, for throughput-only runs.
ImageDataset SyntheticImages(int64_t count, int64_t channels, int64_t side, int64_t classes, uint64_t seed);

// `model`: "resnet20" or "small_cnn".
std::unique_ptr<Task> NewImageClassificationTask(const std::string& model);

// Task resnet50 (imagenet_classification.cc).
std::unique_ptr<Task> NewImageNetClassificationTask();

}  // namespace ergobench
