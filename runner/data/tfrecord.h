// TFRecord files, the format TensorFlow's tf.data reads and the MLPerf HPC CosmoFlow reference
// keeps its data in: records one after another, each
//
//   uint64 length | uint32 masked CRC-32C of those 8 bytes | data | uint32 masked CRC-32C of data
//
// (little-endian; the mask is ((crc >> 15) | (crc << 17)) + 0xa282ead8), the file gzip-compressed
// as a whole or not (the reference's are: its `compression: GZIP`). Every CRC is checked: a record
// cut short or damaged is an error naming the file, the record and its offset, never a short
// sample.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ergobench {

// CRC-32C (Castagnoli, as iSCSI and TFRecord use it), and TFRecord's masked form of it.
uint32_t Crc32c(std::string_view bytes);
uint32_t MaskedCrc32c(std::string_view bytes);

// `data` framed as a record: what a writer appends to the file.
std::string FrameTfRecord(std::string_view data);

class GzFile;

// A file's records one at a time: memory is the record being read, grown as its bytes arrive, so
// a damaged length costs no more than the bytes the file has.
class TfRecordReader {
 public:
  // A CosmoFlow reference record is 16 MiB and some bytes; a longer one is damage.
  static constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 30;

  // gzip'd or plain (zlib tells them apart by the first bytes). NotFound when it cannot be opened.
  static StatusOr<std::unique_ptr<TfRecordReader>> Open(const std::string& path, uint64_t max_record_bytes = kMaxRecordBytes);
  ~TfRecordReader();

  // The next record's data, nothing at the file's end; an error names the file and the record.
  StatusOr<std::optional<std::string>> Next();

 private:
  TfRecordReader(std::string path, std::unique_ptr<GzFile> file, uint64_t max_record_bytes);
  Status Damaged(const std::string& what) const;

  std::string path_;
  std::unique_ptr<GzFile> file_;
  uint64_t max_record_bytes_;
  int64_t record_ = 0;   // the index of the record Next reads
  uint64_t offset_ = 0;  // its offset in the decompressed file
};

// Writes `records` framed to `path`, gzip'd where `gzip` (as the reference's files are).
Status WriteTfRecordFile(const std::string& path, const std::vector<std::string>& records, bool gzip);

}  // namespace ergobench
