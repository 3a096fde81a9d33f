// A CosmoFlow data file as the task reads one (source path): any bytes, gzip'd or not, split
// into TFRecords with their CRCs checked, each decoded as a tf.train.Example and as a sample of a
// small volume. Nothing may crash, hang or allocate more than the bytes given call for.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "runner/data/cosmo_records.h"
#include "runner/data/tf_example.h"
#include "runner/data/tfrecord.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path path = fs::temp_directory_path() / ("tfrecord_fuzzer." + std::to_string(getpid()) + ".tfrecord");
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  auto reader = ergobench::TfRecordReader::Open(path.string(), 1 << 20);
  if (!reader.ok()) std::abort();  // the file was just written
  const ergobench::CosmoVolume volume{2, 4};
  int16_t counts[32];
  float parameters[4];
  for (int records = 0; records < 64; ++records) {
    auto record = (*reader)->Next();
    if (!record.ok() || !record->has_value()) break;
    const std::string& bytes = **record;
    if (auto features = ergobench::DecodeTfExample(bytes); features.ok()) {
      // What decodes re-encodes to bytes that decode to the same bytes again (floats compared as
      // bytes: a NaN is not equal to itself).
      const std::string once = ergobench::EncodeTfExample(*features);
      auto again = ergobench::DecodeTfExample(once);
      if (!again.ok() || ergobench::EncodeTfExample(*again) != once) std::abort();
    }
    (void)ergobench::DecodeCosmoRecord(bytes, volume, counts, parameters);
  }
  std::error_code error;
  fs::remove(path, error);
  return 0;
}
