// A data set's archive as ergobench-stage and `ergobench run` extract it: any bytes, checked
// against their own sha256 and extracted under small limits. Whatever is extracted stays inside
// the data folder: every link in it resolves there (the audit's chain of links did not).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "runner/data/dataset_fetch.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path root = fs::temp_directory_path() / ("dataset_archive_fuzzer." + std::to_string(getpid()));
  std::error_code error;
  fs::remove_all(root, error);
  fs::create_directories(root / "cache", error);
  const fs::path archive = root / "archive.tar";
  std::ofstream(archive, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  ergobench::FetchLimits limits;
  limits.allow_file_urls = true;
  limits.max_extracted_bytes = 1 << 20;
  limits.max_entries = 256;
  auto extracted = ergobench::FetchDataset("file://" + archive.string(), *ergobench::Sha256OfFile(archive.string()),
                                           (root / "cache").string(), limits);
  if (extracted.ok()) {
    const fs::path into = fs::canonical(*extracted);
    for (auto it = fs::recursive_directory_iterator(into, error); !error && it != fs::recursive_directory_iterator();
         it.increment(error)) {
      if (!it->is_symlink(error)) continue;
      const fs::path inside = fs::weakly_canonical(it->path(), error).lexically_relative(into);
      if (inside.empty() || *inside.begin() == "..") std::abort();
    }
  }
  fs::remove_all(root, error);
  return 0;
}
