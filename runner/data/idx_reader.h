// IDX files, the format of MNIST and Fashion-MNIST: a big-endian magic (0, 0, type, rank),
// rank big-endian dimensions, then the data. Files may be gzip-compressed, as Debian's
// dataset-fashion-mnist ships them, or raw.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "runner/data/image_dataset.h"

namespace ergobench {

struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;  // unsigned bytes (type 0x08), the only type image sets use
};

// Reads one IDX file of unsigned bytes; names the file and the problem on failure.
StatusOr<IdxArray> ReadIdx(const std::string& path);

// Pairs an images file (N × H × W) with a labels file (N) into a 1-channel dataset.
StatusOr<ImageDataset> LoadIdxImages(const std::string& images_path, const std::string& labels_path,
                                     int64_t classes);

}  // namespace ergobench
