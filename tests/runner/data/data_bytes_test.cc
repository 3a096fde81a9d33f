#include "runner/data/data_bytes.h"

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "runner/data/cifar10_reader.h"
#include "runner/data/gz_file.h"
#include "runner/data/idx_reader.h"
#include "runner/data/jpeg_codec.h"

namespace ergobench {
namespace {

std::string BytesTempPath(const std::string& name) { return ::testing::TempDir() + "/data_bytes_" + name; }

int64_t FileBytes(const std::string& path) { return static_cast<int64_t>(std::filesystem::file_size(path)); }

// What `read` counted.
template <typename Read>
int64_t CountedBy(Read read) {
  const int64_t before = DataBytesRead();
  read();
  return DataBytesRead() - before;
}

TEST(DataBytesTest, CountsFromEveryThreadExactly) {
  const int64_t counted = CountedBy([] {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([] {
        for (int i = 0; i < 1000; ++i) CountDataBytes(3);
      });
    }
    for (std::thread& t : threads) t.join();
  });
  EXPECT_EQ(counted, 12000);
  EXPECT_EQ(CountedBy([] { CountDataBytes(-5); }), 0);
}

TEST(DataBytesTest, AFileIsCountedAtItsSizeAndAMissingOneNotAtAll) {
  const std::string path = BytesTempPath("plain");
  std::ofstream(path) << std::string(1234, 'x');
  EXPECT_EQ(CountedBy([&] { CountDataFile(path); }), 1234);
  EXPECT_EQ(CountedBy([] { CountDataFile(BytesTempPath("missing")); }), 0);
}

// An IDX file of 500 images of 2x3, written gzip-compressed and raw: the compressed file is
// counted at its size on disk, not at what it inflates to.
TEST(DataBytesTest, ReadersCountTheFilesBytesCompressedWhereTheyAre) {
  std::vector<uint8_t> bytes = {0, 0, 0x08, 3, 0, 0, 1, 0xf4, 0, 0, 0, 2, 0, 0, 0, 3};
  for (int i = 0; i < 500 * 6; ++i) bytes.push_back(static_cast<uint8_t>(i % 7));
  const std::string raw = BytesTempPath("images.idx");
  std::ofstream(raw, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const std::string gz = BytesTempPath("images.idx.gz");
  gzFile f = gzopen(gz.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
  ASSERT_LT(FileBytes(gz), FileBytes(raw));
  EXPECT_EQ(CountedBy([&] { ASSERT_TRUE(ReadIdx(raw).ok()); }), FileBytes(raw));
  EXPECT_EQ(CountedBy([&] { ASSERT_TRUE(ReadIdx(gz).ok()); }), FileBytes(gz));
  EXPECT_EQ(CountedBy([&] { ASSERT_TRUE(ReadMaybeGzipped(gz).ok()); }), FileBytes(gz));
}

TEST(DataBytesTest, AJpegIsCountedAtItsSize) {
  RgbImage image;
  image.width = 16;
  image.height = 8;
  image.pixels.assign(16 * 8 * 3, 128);
  const StatusOr<std::string> jpeg = EncodeJpeg(image, 90);
  ASSERT_TRUE(jpeg.ok()) << jpeg.status().ToString();
  const std::string path = BytesTempPath("image.jpg");
  std::ofstream(path, std::ios::binary) << *jpeg;
  EXPECT_EQ(CountedBy([&] { ASSERT_TRUE(DecodeJpegFile(path, 0).ok()); }), static_cast<int64_t>(jpeg->size()));
}

// CIFAR-10's binary batches: 3073-byte records, read whole.
TEST(DataBytesTest, ACifarBatchIsCountedAtItsSize) {
  const std::string dir = BytesTempPath("cifar");
  std::filesystem::create_directories(dir);
  std::string record(3073, '\x01');
  std::ofstream(dir + "/test_batch.bin", std::ios::binary) << record << record;
  EXPECT_EQ(CountedBy([&] { ASSERT_TRUE(LoadCifar10(dir, /*train=*/false).ok()); }), 2 * 3073);
}

}  // namespace
}  // namespace ergobench
