#include "runner/dist/communicator.h"

#include <cstring>
#include <new>

#include "base/units.h"

namespace ergobench {

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return 4;
    case DType::kFloat64: return 8;
    case DType::kFloat16: return 2;
    case DType::kInt64: return 8;
  }
  return 0;
}

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
    case DType::kFloat16: return "float16";
    case DType::kInt64: return "int64";
  }
  return "?";
}

StatusOr<DType> ParseDType(const std::string& name) {
  for (DType d : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kInt64}) {
    if (name == DTypeName(d)) return d;
  }
  return Status::InvalidArgument("unknown dtype \"" + name + "\"");
}

StatusOr<std::unique_ptr<CollectiveBuffer>> HostBuffer::Allocate(size_t bytes) {
  std::unique_ptr<std::byte[]> data(new (std::nothrow) std::byte[bytes]);
  if (!data) return Status::Unavailable("cannot allocate " + FormatBytes(static_cast<double>(bytes)) + " of host memory");
  return std::unique_ptr<CollectiveBuffer>(new HostBuffer(std::move(data), bytes));
}

Status HostBuffer::CopyFromHost(const void* source, size_t bytes) {
  if (bytes > bytes_) return Status::InvalidArgument("copy of " + std::to_string(bytes) + " bytes into a buffer of " + std::to_string(bytes_));
  std::memcpy(data_.get(), source, bytes);
  return Status::Ok();
}

Status HostBuffer::CopyToHost(void* destination, size_t bytes) const {
  if (bytes > bytes_) return Status::InvalidArgument("copy of " + std::to_string(bytes) + " bytes out of a buffer of " + std::to_string(bytes_));
  std::memcpy(destination, data_.get(), bytes);
  return Status::Ok();
}

}  // namespace ergobench
