#include "runner/data/gz_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include "runner/data/data_bytes.h"

namespace ergobench {

GzFile::GzFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
  if (fd_ < 0) return;
  file_ = gzdopen(fd_, "rb");
  if (file_ == nullptr) ::close(fd_);
}

GzFile::~GzFile() {
  if (file_ == nullptr) return;
  // What was read from the file (zlib reads ahead in blocks), whatever it inflated to.
  CountDataBytes(static_cast<int64_t>(::lseek(fd_, 0, SEEK_CUR)));
  gzclose(file_);  // and with it fd_
}

size_t GzFile::Read(void* out, size_t size) {
  size_t total = 0;
  auto* bytes = static_cast<uint8_t*>(out);
  while (total < size) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(size - total, 1u << 30));
    const int n = gzread(file_, bytes + total, chunk);
    if (n <= 0) break;
    total += static_cast<size_t>(n);
  }
  return total;
}

std::string GzFile::error() {
  int code = 0;
  const std::string message = gzerror(file_, &code);
  if (code == Z_OK || code == Z_STREAM_END) return "";
  // zlib names a gzdopen'd file "<fd:N>"; the caller names the file.
  const size_t named = message.rfind(">: ");
  return message.rfind("<fd:", 0) == 0 && named != std::string::npos ? message.substr(named + 3) : message;
}

StatusOr<std::string> ReadMaybeGzipped(const std::string& path) {
  GzFile file(path);
  if (!file.ok()) return Status::NotFound(path + ": cannot open: " + std::strerror(errno));
  std::string content;
  char buffer[1 << 16];
  while (const size_t n = file.Read(buffer, sizeof buffer)) {
    content.append(buffer, n);
    if (n < sizeof buffer) break;
  }
  if (const std::string error = file.error(); !error.empty()) return Status::InvalidArgument(path + ": " + error);
  return content;
}

}  // namespace ergobench
