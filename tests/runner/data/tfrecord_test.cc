// TFRecord framing against published CRC-32C vectors (the CRC catalogue's check value, RFC 3720's
// iSCSI vectors) and records framed by hand; a file read back as written, gzip'd or plain; every
// kind of damage named with the file, the record and its offset.
#include "runner/data/tfrecord.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

namespace fs = std::filesystem;

std::string RawBytes(std::initializer_list<int> values) {
  std::string out;
  for (const int v : values) out.push_back(static_cast<char>(v));
  return out;
}

TEST(Crc32cTest, MatchesThePublishedVectors) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);  // CRC-32/ISCSI's check value
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
  EXPECT_EQ(Crc32c(ascending), 0x46DD794Eu);
  // ((crc >> 15) | (crc << 17)) + 0xa282ead8 of 0xE3069283, by hand: 0xC78AB0E5.
  EXPECT_EQ(MaskedCrc32c("123456789"), 0xC78AB0E5u);
  EXPECT_EQ(MaskedCrc32c(""), 0xA282EAD8u);  // the CRC of nothing is 0: the mask's delta
}

TEST(TfRecordTest, FramesARecordAsTensorFlowWritesIt) {
  // length 3 | masked CRC of the length's 8 bytes | "abc" | masked CRC of "abc"
  EXPECT_EQ(FrameTfRecord("abc"), RawBytes({0x03, 0, 0, 0, 0, 0, 0, 0, 0xb0, 0x99, 0x49, 0x0e, 'a', 'b', 'c',
                                         0x6e, 0x57, 0xf1, 0x21}));
  EXPECT_EQ(FrameTfRecord(""), RawBytes({0, 0, 0, 0, 0, 0, 0, 0, 0x29, 0x03, 0x98, 0x07, 0xd8, 0xea, 0x82, 0xa2}));
}

class TfRecordFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tfrecord_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  void WriteRaw(const std::string& name, const std::string& bytes) const {
    std::ofstream(Path(name), std::ios::binary) << bytes;
  }
  // Every record of the file, or the first error.
  static StatusOr<std::vector<std::string>> ReadAll(const std::string& path, uint64_t max = TfRecordReader::kMaxRecordBytes) {
    ASSIGN_OR_RETURN(std::unique_ptr<TfRecordReader> reader, TfRecordReader::Open(path, max));
    std::vector<std::string> records;
    for (;;) {
      ASSIGN_OR_RETURN(std::optional<std::string> record, reader->Next());
      if (!record) return records;
      records.push_back(std::move(*record));
    }
  }
  fs::path dir_;
};

TEST_F(TfRecordFileTest, ReadsBackWhatWasWrittenGzippedOrPlain) {
  std::string large(100000, '\0');
  for (size_t i = 0; i < large.size(); ++i) large[i] = static_cast<char>(i * 7919 % 251);
  const std::vector<std::string> records = {"", "abc", large};
  for (const bool gzip : {true, false}) {
    const std::string path = Path(gzip ? "r.tfrecord.gz" : "r.tfrecord");
    ASSERT_TRUE(WriteTfRecordFile(path, records, gzip).ok());
    std::ifstream file(path, std::ios::binary);
    char magic[2];
    file.read(magic, 2);
    EXPECT_EQ(magic[0] == '\x1f' && magic[1] == '\x8b', gzip) << "gzip's magic";
    auto read = ReadAll(path);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(*read, records);
  }
  EXPECT_EQ(fs::file_size(Path("r.tfrecord")), 16u * 3 + 3 + 100000);
}

TEST_F(TfRecordFileTest, DamageIsNamedWithTheFileTheRecordAndItsOffset) {
  const std::string good = FrameTfRecord("abc") + FrameTfRecord("defg");
  std::string flipped = good;
  flipped[19 + 12 + 1] ^= 0x01;  // "defg"'s 'e'
  WriteRaw("flipped.tfrecord", flipped);
  EXPECT_EQ(ReadAll(Path("flipped.tfrecord")).status().message(),
            Path("flipped.tfrecord") + ": record 1 at byte 19: the data's CRC does not match (damaged)");
  WriteRaw("cut.tfrecord", good.substr(0, good.size() - 3));
  EXPECT_EQ(ReadAll(Path("cut.tfrecord")).status().message(),
            Path("cut.tfrecord") + ": record 1 at byte 19: the file ends before the record's CRC");
  WriteRaw("cut-data.tfrecord", good.substr(0, 19 + 12 + 2));
  EXPECT_EQ(ReadAll(Path("cut-data.tfrecord")).status().message(),
            Path("cut-data.tfrecord") + ": record 1 at byte 19: the file ends inside the record's 4 bytes");
  WriteRaw("cut-length.tfrecord", good.substr(0, 19 + 5));
  EXPECT_EQ(ReadAll(Path("cut-length.tfrecord")).status().message(),
            Path("cut-length.tfrecord") + ": record 1 at byte 19: the file ends inside the record's length");
  WriteRaw("text.tfrecord", "x,y\n1,2\n3,4\n5,6\n");
  EXPECT_EQ(ReadAll(Path("text.tfrecord")).status().message(),
            Path("text.tfrecord") +
                ": record 0 at byte 0: the length's CRC does not match (not a TFRecord file, or damaged)");
  WriteRaw("long.tfrecord", good);
  EXPECT_EQ(ReadAll(Path("long.tfrecord"), 3).status().message(),
            Path("long.tfrecord") + ": record 1 at byte 19: 4 bytes long, over the 3 a record may be");
  EXPECT_EQ(TfRecordReader::Open(Path("none.tfrecord")).status().code(), StatusCode::kNotFound);
}

// A length whose CRC is right but whose bytes the file does not have: an error after reading
// what is there, not a gigabyte allocated first.
TEST_F(TfRecordFileTest, AForgedLengthCostsOnlyTheBytesTheFileHas) {
  std::string header = RawBytes({0, 0, 0, 0x40, 0, 0, 0, 0});  // 1 GiB
  const uint32_t crc = MaskedCrc32c(header);
  for (int i = 0; i < 4; ++i) header.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  WriteRaw("forged.tfrecord", header + "tiny");
  EXPECT_EQ(ReadAll(Path("forged.tfrecord")).status().message(),
            Path("forged.tfrecord") + ": record 0 at byte 0: the file ends inside the record's 1073741824 bytes");
}

TEST_F(TfRecordFileTest, ADamagedGzipStreamSaysSo) {
  std::string noise(50000, '\0');  // incompressible: half the file inflates to half the record
  uint32_t state = 1;
  for (char& c : noise) c = static_cast<char>((state = state * 1664525u + 1013904223u) >> 24);
  ASSERT_TRUE(WriteTfRecordFile(Path("z.tfrecord"), {noise}, true).ok());
  std::string bytes;
  {
    std::ifstream in(Path("z.tfrecord"), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes.resize(bytes.size() / 2);
  WriteRaw("z.tfrecord", bytes);
  const Status status = ReadAll(Path("z.tfrecord")).status();
  EXPECT_EQ(status.message(), Path("z.tfrecord") + ": record 0 at byte 0: the file ends inside the record's 50000 "
                                                    "bytes (gzip: unexpected end of file)");
}

}  // namespace
}  // namespace ergobench
