// The CIFAR-10 binary version: data_batch_1.bin .. data_batch_5.bin (training) and
// test_batch.bin (test), each 10000 records of 1 label byte and 3072 pixel bytes (1024
// red, 1024 green, 1024 blue, row-major): already the NCHW layout of ImageDataset.
#pragma once

#include <string>

#include "base/status.h"
#include "runner/data/image_dataset.h"

namespace ergobench {

inline constexpr int64_t kCifarRecordBytes = 1 + 3 * 32 * 32;

// Reads the training or test split from `dir`. A missing, truncated or mislabelled file is
// an error naming the file.
StatusOr<ImageDataset> LoadCifar10(const std::string& dir, bool train);

}  // namespace ergobench
