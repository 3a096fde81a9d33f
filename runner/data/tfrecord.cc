#include "runner/data/tfrecord.h"

#include <zlib.h>

#include <algorithm>
#include <boost/crc.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runner/data/gz_file.h"

namespace ergobench {
namespace {

using Crc32cComputer = boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true>;

constexpr uint32_t kMaskDelta = 0xa282ead8u;

void PutLittleEndian(uint64_t value, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t GetLittleEndian(const unsigned char* bytes, int n) {
  uint64_t value = 0;
  for (int i = n - 1; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

}  // namespace

uint32_t Crc32c(std::string_view bytes) {
  Crc32cComputer crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

uint32_t MaskedCrc32c(std::string_view bytes) {
  const uint32_t crc = Crc32c(bytes);
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

std::string FrameTfRecord(std::string_view data) {
  std::string record;
  record.reserve(data.size() + 16);
  PutLittleEndian(data.size(), 8, &record);
  PutLittleEndian(MaskedCrc32c(record), 4, &record);
  record.append(data);
  PutLittleEndian(MaskedCrc32c(data), 4, &record);
  return record;
}

StatusOr<std::unique_ptr<TfRecordReader>> TfRecordReader::Open(const std::string& path, uint64_t max_record_bytes) {
  auto file = std::make_unique<GzFile>(path);
  if (!file->ok()) return Status::NotFound(path + ": cannot open: " + std::strerror(errno));
  return std::unique_ptr<TfRecordReader>(new TfRecordReader(path, std::move(file), max_record_bytes));
}

TfRecordReader::TfRecordReader(std::string path, std::unique_ptr<GzFile> file, uint64_t max_record_bytes)
    : path_(std::move(path)), file_(std::move(file)), max_record_bytes_(max_record_bytes) {}

TfRecordReader::~TfRecordReader() = default;

Status TfRecordReader::Damaged(const std::string& what) const {
  std::string message = path_ + ": record " + std::to_string(record_) + " at byte " + std::to_string(offset_) + ": " + what;
  if (const std::string error = file_->error(); !error.empty()) message += " (gzip: " + error + ")";
  return Status::InvalidArgument(message);
}

StatusOr<std::optional<std::string>> TfRecordReader::Next() {
  unsigned char header[12];
  const size_t got = file_->Read(header, sizeof header);
  if (got == 0 && file_->error().empty()) return std::optional<std::string>();
  if (got < sizeof header) return Damaged("the file ends inside the record's length");
  const std::string_view length_bytes(reinterpret_cast<const char*>(header), 8);
  if (MaskedCrc32c(length_bytes) != GetLittleEndian(header + 8, 4)) {
    return Damaged("the length's CRC does not match (not a TFRecord file, or damaged)");
  }
  const uint64_t length = GetLittleEndian(header, 8);
  if (length > max_record_bytes_) {
    return Damaged(std::to_string(length) + " bytes long, over the " + std::to_string(max_record_bytes_) + " a record may be");
  }
  // Grown as the bytes arrive: a length the file does not have allocates no more than it has.
  std::string data;
  constexpr uint64_t kChunk = uint64_t{16} << 20;
  while (data.size() < length) {
    const size_t before = data.size();
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, length - before));
    data.resize(before + want);
    const size_t n = file_->Read(data.data() + before, want);
    if (n < want) return Damaged("the file ends inside the record's " + std::to_string(length) + " bytes");
  }
  unsigned char footer[4];
  if (file_->Read(footer, sizeof footer) < sizeof footer) return Damaged("the file ends before the record's CRC");
  if (MaskedCrc32c(data) != GetLittleEndian(footer, 4)) return Damaged("the data's CRC does not match (damaged)");
  ++record_;
  offset_ += length + 16;
  return std::optional<std::string>(std::move(data));
}

Status WriteTfRecordFile(const std::string& path, const std::vector<std::string>& records, bool gzip) {
  gzFile file = gzopen(path.c_str(), gzip ? "wb6" : "wbT");  // T: plain, through zlib's same calls
  if (file == nullptr) return Status::FailedPrecondition(path + ": cannot create: " + std::strerror(errno));
  for (const std::string& data : records) {
    const std::string record = FrameTfRecord(data);
    for (size_t at = 0; at < record.size();) {
      const unsigned chunk = static_cast<unsigned>(std::min<size_t>(record.size() - at, 1u << 30));
      if (gzwrite(file, record.data() + at, chunk) != static_cast<int>(chunk)) {
        int code = 0;
        const std::string error = gzerror(file, &code);
        gzclose(file);
        return Status::FailedPrecondition(path + ": cannot write: " + error);
      }
      at += chunk;
    }
  }
  if (gzclose(file) != Z_OK) return Status::FailedPrecondition(path + ": cannot write: " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace ergobench
