#include "runner/data/cifar10_reader.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

namespace fs = std::filesystem;

// Writes a CIFAR-10 batch file of `records` records; record r has label r % 10 and pixel
// values (r + i) % 256.
void WriteBatch(const fs::path& path, int records, int first_record) {
  std::ofstream out(path, std::ios::binary);
  for (int r = first_record; r < first_record + records; ++r) {
    out.put(static_cast<char>(r % 10));
    for (int i = 0; i < 3072; ++i) out.put(static_cast<char>((r + i) % 256));
  }
}

class Cifar10ReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / "cifar10";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (int b = 1; b <= 5; ++b) WriteBatch(dir_ / ("data_batch_" + std::to_string(b) + ".bin"), 3, (b - 1) * 3);
    WriteBatch(dir_ / "test_batch.bin", 2, 100);
  }
  fs::path dir_;
};

TEST_F(Cifar10ReaderTest, ReadsTrainAndTest) {
  auto train = LoadCifar10(dir_.string(), true);
  ASSERT_TRUE(train.ok()) << train.status().ToString();
  EXPECT_EQ(train->count, 15);
  EXPECT_EQ(train->channels, 3);
  EXPECT_EQ(train->image_size(), 3072);
  EXPECT_EQ(train->labels[7], 7);
  EXPECT_EQ(train->image(7)[0], 7);        // red plane, first pixel
  EXPECT_EQ(train->image(7)[1024], (7 + 1024) % 256);  // green plane starts at 1024
  auto test = LoadCifar10(dir_.string(), false);
  ASSERT_TRUE(test.ok());
  EXPECT_EQ(test->count, 2);
  EXPECT_EQ(test->labels[1], 101 % 10);
}

TEST_F(Cifar10ReaderTest, MissingTruncatedAndBadLabels) {
  fs::remove(dir_ / "data_batch_3.bin");
  auto missing = LoadCifar10(dir_.string(), true);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("data_batch_3.bin: cannot open"), std::string::npos);

  WriteBatch(dir_ / "data_batch_3.bin", 2, 0);
  fs::resize_file(dir_ / "data_batch_3.bin", 3073 * 2 - 10);
  auto truncated = LoadCifar10(dir_.string(), true);
  EXPECT_NE(truncated.status().message().find("data_batch_3.bin: 6136 bytes is not a whole number of 3073-byte records"),
            std::string::npos) << truncated.status().message();

  {
    std::ofstream out(dir_ / "test_batch.bin", std::ios::binary);
    out.put(static_cast<char>(12));
    for (int i = 0; i < 3072; ++i) out.put(0);
  }
  EXPECT_NE(LoadCifar10(dir_.string(), false).status().message().find("record 0 has label 12, not 0..9"),
            std::string::npos);
}

}  // namespace
}  // namespace ergobench
