// Reading files that may be gzip-compressed (zlib's gzread passes plain files through), for
// the dataset readers: IDX images, text corpora.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <string>

#include "base/status.h"

namespace ergobench {

// Counts the bytes it read from the file as data (data_bytes.h) when it closes.
class GzFile {
 public:
  explicit GzFile(const std::string& path);
  ~GzFile();
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  bool ok() const { return file_ != nullptr; }
  // Bytes read; fewer than asked means the file ended (or was corrupt: see error()).
  size_t Read(void* out, size_t size);
  // Empty unless reading failed.
  std::string error();

 private:
  int fd_ = -1;
  gzFile file_ = nullptr;
};

// The whole (decompressed) content of `path`.
StatusOr<std::string> ReadMaybeGzipped(const std::string& path);

}  // namespace ergobench
