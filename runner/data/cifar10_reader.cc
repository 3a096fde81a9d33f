#include "runner/data/cifar10_reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "runner/data/data_bytes.h"

namespace ergobench {
namespace {

Status AppendBatch(const std::string& path, ImageDataset* dataset) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Status::NotFound(path + ": cannot open: " + std::strerror(errno));
  const int64_t size = in.tellg();
  if (size == 0 || size % kCifarRecordBytes != 0) {
    return Status::InvalidArgument(path + ": " + std::to_string(size) + " bytes is not a whole number of " +
                                   std::to_string(kCifarRecordBytes) + "-byte records (truncated?)");
  }
  in.seekg(0);
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) {
    return Status::Unavailable(path + ": read failed: " + std::strerror(errno));
  }
  CountDataBytes(size);
  const int64_t records = size / kCifarRecordBytes;
  const int64_t image_bytes = kCifarRecordBytes - 1;
  dataset->pixels.reserve(dataset->pixels.size() + static_cast<size_t>(records * image_bytes));
  for (int64_t r = 0; r < records; ++r) {
    const uint8_t* record = bytes.data() + r * kCifarRecordBytes;
    if (record[0] >= 10) {
      return Status::InvalidArgument(path + ": record " + std::to_string(r) + " has label " +
                                     std::to_string(record[0]) + ", not 0..9");
    }
    dataset->labels.push_back(record[0]);
    dataset->pixels.insert(dataset->pixels.end(), record + 1, record + kCifarRecordBytes);
  }
  dataset->count += records;
  return Status::Ok();
}

}  // namespace

StatusOr<ImageDataset> LoadCifar10(const std::string& dir, bool train) {
  ImageDataset dataset;
  dataset.channels = 3;
  dataset.height = 32;
  dataset.width = 32;
  dataset.classes = 10;
  std::vector<std::string> files;
  if (train) {
    for (int i = 1; i <= 5; ++i) files.push_back(dir + "/data_batch_" + std::to_string(i) + ".bin");
  } else {
    files.push_back(dir + "/test_batch.bin");
  }
  for (const std::string& file : files) RETURN_IF_ERROR(AppendBatch(file, &dataset));
  return dataset;
}

}  // namespace ergobench
