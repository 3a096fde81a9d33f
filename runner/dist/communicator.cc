#include "runner/dist/communicator.h"

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

}  // namespace ergobench
