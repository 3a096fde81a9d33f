#include "runner/data/idx_reader.h"

#include <cerrno>
#include <cstring>
#include <memory>

#include "runner/data/gz_file.h"

namespace ergobench {
namespace {

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

}  // namespace

StatusOr<IdxArray> ReadIdx(const std::string& path) {
  GzFile file(path);
  if (!file.ok()) return Status::NotFound(path + ": cannot open: " + std::strerror(errno));
  uint8_t magic[4];
  if (file.Read(magic, 4) != 4) return Status::InvalidArgument(path + ": truncated: no IDX header");
  if (magic[0] != 0 || magic[1] != 0) {
    return Status::InvalidArgument(path + ": not an IDX file (magic bytes are not 0 0)");
  }
  if (magic[2] != 0x08) {
    return Status::InvalidArgument(path + ": IDX element type 0x" + std::to_string(magic[2]) +
                                   " is not unsigned byte (0x08)");
  }
  const int rank = magic[3];
  if (rank < 1 || rank > 4) return Status::InvalidArgument(path + ": IDX rank " + std::to_string(rank) + " is not 1..4");
  IdxArray array;
  int64_t elements = 1;
  for (int d = 0; d < rank; ++d) {
    uint8_t dim[4];
    if (file.Read(dim, 4) != 4) return Status::InvalidArgument(path + ": truncated in the IDX header");
    array.dims.push_back(BigEndian32(dim));
    elements *= array.dims.back();
  }
  if (elements > (int64_t{1} << 34)) return Status::InvalidArgument(path + ": IDX dimensions are implausibly large");
  array.data.resize(static_cast<size_t>(elements));
  const size_t read = file.Read(array.data.data(), array.data.size());
  if (read != array.data.size()) {
    const std::string why = file.error();
    return Status::InvalidArgument(path + ": truncated: " + std::to_string(read) + " of " +
                                   std::to_string(elements) + " data bytes" + (why.empty() ? "" : " (" + why + ")"));
  }
  return array;
}

StatusOr<ImageDataset> LoadIdxImages(const std::string& images_path, const std::string& labels_path,
                                     int64_t classes) {
  ASSIGN_OR_RETURN(IdxArray images, ReadIdx(images_path));
  ASSIGN_OR_RETURN(IdxArray labels, ReadIdx(labels_path));
  if (images.dims.size() != 3) {
    return Status::InvalidArgument(images_path + ": images must have 3 dimensions (N, H, W), got " +
                                   std::to_string(images.dims.size()));
  }
  if (labels.dims.size() != 1) {
    return Status::InvalidArgument(labels_path + ": labels must have 1 dimension, got " +
                                   std::to_string(labels.dims.size()));
  }
  if (images.dims[0] != labels.dims[0]) {
    return Status::InvalidArgument(images_path + " holds " + std::to_string(images.dims[0]) + " images but " +
                                   labels_path + " holds " + std::to_string(labels.dims[0]) + " labels");
  }
  for (size_t i = 0; i < labels.data.size(); ++i) {
    if (labels.data[i] >= classes) {
      return Status::InvalidArgument(labels_path + ": label " + std::to_string(labels.data[i]) + " at index " +
                                     std::to_string(i) + " is not below " + std::to_string(classes));
    }
  }
  ImageDataset dataset;
  dataset.count = images.dims[0];
  dataset.channels = 1;
  dataset.height = images.dims[1];
  dataset.width = images.dims[2];
  dataset.classes = classes;
  dataset.pixels = std::move(images.data);
  dataset.labels = std::move(labels.data);
  return dataset;
}

}  // namespace ergobench
