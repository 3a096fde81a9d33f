#include "runner/data/idx_reader.h"

#include <zlib.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

std::string Temp(const std::string& name) { return ::testing::TempDir() + "/idx_" + name; }

std::vector<uint8_t> Header(uint8_t type, std::vector<uint32_t> dims) {
  std::vector<uint8_t> bytes = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims) {
    for (int shift : {24, 16, 8, 0}) bytes.push_back(static_cast<uint8_t>(d >> shift));
  }
  return bytes;
}

std::string WriteRaw(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = Temp(name);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return path;
}

std::string WriteGzip(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = Temp(name);
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
  return path;
}

std::vector<uint8_t> Images(int n) {
  std::vector<uint8_t> bytes = Header(0x08, {static_cast<uint32_t>(n), 2, 3});
  for (int i = 0; i < n * 6; ++i) bytes.push_back(static_cast<uint8_t>(i));
  return bytes;
}

std::vector<uint8_t> Labels(std::vector<uint8_t> labels) {
  std::vector<uint8_t> bytes = Header(0x08, {static_cast<uint32_t>(labels.size())});
  bytes.insert(bytes.end(), labels.begin(), labels.end());
  return bytes;
}

TEST(IdxReaderTest, ReadsRawAndGzip) {
  for (bool gzip : {false, true}) {
    auto images = gzip ? WriteGzip("i.gz", Images(4)) : WriteRaw("i", Images(4));
    auto labels = gzip ? WriteGzip("l.gz", Labels({3, 1, 4, 1})) : WriteRaw("l", Labels({3, 1, 4, 1}));
    auto data = LoadIdxImages(images, labels, 10);
    ASSERT_TRUE(data.ok()) << data.status().ToString();
    EXPECT_EQ(data->count, 4);
    EXPECT_EQ(data->channels, 1);
    EXPECT_EQ(data->height, 2);
    EXPECT_EQ(data->width, 3);
    EXPECT_EQ(data->labels, (std::vector<uint8_t>{3, 1, 4, 1}));
    EXPECT_EQ(data->image(2)[0], 12);
    EXPECT_EQ(data->image(3)[5], 23);
  }
}

TEST(IdxReaderTest, Errors) {
  EXPECT_NE(ReadIdx(Temp("absent")).status().message().find("cannot open"), std::string::npos);
  std::vector<uint8_t> truncated = Images(4);
  truncated.resize(truncated.size() - 5);
  auto t = ReadIdx(WriteRaw("trunc", truncated));
  EXPECT_NE(t.status().message().find("truncated: 19 of 24 data bytes"), std::string::npos) << t.status().message();
  EXPECT_NE(ReadIdx(WriteRaw("magic", {1, 2, 8, 1})).status().message().find("not an IDX file"), std::string::npos);
  EXPECT_NE(ReadIdx(WriteRaw("float", Header(0x0D, {1}))).status().message().find("is not unsigned byte"),
            std::string::npos);
  EXPECT_NE(ReadIdx(WriteRaw("short", {0, 0})).status().message().find("no IDX header"), std::string::npos);
  auto mismatch = LoadIdxImages(WriteRaw("i4", Images(4)), WriteRaw("l3", Labels({1, 2, 3})), 10);
  EXPECT_NE(mismatch.status().message().find("holds 4 images but"), std::string::npos);
  auto range = LoadIdxImages(WriteRaw("i2", Images(2)), WriteRaw("l2", Labels({1, 10})), 10);
  EXPECT_NE(range.status().message().find("label 10 at index 1 is not below 10"), std::string::npos);
}

TEST(IdxReaderTest, RealFashionMnist) {
  const std::string dir = "/usr/share/datasets/fashion-mnist";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  auto test = LoadIdxImages(dir + "/t10k-images-idx3-ubyte.gz", dir + "/t10k-labels-idx1-ubyte.gz", 10);
  ASSERT_TRUE(test.ok()) << test.status().ToString();
  EXPECT_EQ(test->count, 10000);
  EXPECT_EQ(test->height, 28);
  EXPECT_EQ(test->width, 28);
  // Ground truth read with Python's gzip and struct modules.
  EXPECT_EQ(std::vector<uint8_t>(test->labels.begin(), test->labels.begin() + 10),
            (std::vector<uint8_t>{9, 2, 1, 1, 6, 1, 4, 6, 5, 7}));
  int64_t sum = 0;
  for (int i = 0; i < 784; ++i) sum += test->image(0)[i];
  EXPECT_EQ(sum, 33456);
}

}  // namespace
}  // namespace ergobench
