// /proc/self/io as the runner reads it for the storage bytes of its I/O figures: whatever the
// text, ParseStorageReadBytes neither throws nor reads past it, and a count it returns is one.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "runner/metrics/process_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ergobench::StatusOr<int64_t> bytes =
      ergobench::ParseStorageReadBytes(std::string_view(reinterpret_cast<const char*>(data), size));
  if (bytes.ok() && *bytes < 0) std::abort();
  return 0;
}
