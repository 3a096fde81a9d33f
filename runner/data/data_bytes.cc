#include "runner/data/data_bytes.h"

#include <atomic>
#include <filesystem>
#include <system_error>

namespace ergobench {
namespace {

std::atomic<int64_t>& Counter() {
  static std::atomic<int64_t> bytes{0};
  return bytes;
}

}  // namespace

void CountDataBytes(int64_t bytes) {
  if (bytes > 0) Counter().fetch_add(bytes, std::memory_order_relaxed);
}

void CountDataFile(const std::string& path) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (!error) CountDataBytes(static_cast<int64_t>(size));
}

int64_t DataBytesRead() { return Counter().load(std::memory_order_relaxed); }

}  // namespace ergobench
