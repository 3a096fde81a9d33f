#include "runner/metrics/process_io.h"

#include <charconv>
#include <fstream>

namespace ergobench {
namespace {

constexpr std::string_view kKey = "read_bytes:";
constexpr size_t kMaxText = 4096;  // the kernel's is under 200 bytes

}  // namespace

StatusOr<int64_t> ParseStorageReadBytes(std::string_view text) {
  if (text.size() > kMaxText) return Status::InvalidArgument("/proc/self/io: over " + std::to_string(kMaxText) + " bytes");
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.substr(0, kKey.size()) != kKey) continue;
    line.remove_prefix(kKey.size());
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    int64_t value = -1;
    const auto [next, error] = std::from_chars(line.data(), line.data() + line.size(), value);
    if (error != std::errc() || next != line.data() + line.size() || value < 0) {
      return Status::InvalidArgument("/proc/self/io: read_bytes is not a count of bytes");
    }
    return value;
  }
  return Status::NotFound("/proc/self/io: no read_bytes line");
}

std::optional<int64_t> StorageReadBytes(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string text(kMaxText + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  StatusOr<int64_t> bytes = ParseStorageReadBytes(text);
  if (!bytes.ok()) return std::nullopt;
  return *bytes;
}

}  // namespace ergobench
