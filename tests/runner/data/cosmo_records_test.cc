// CosmoFlow's records: the volume travels channels-last in x, as the reference's TFRecords hold
// it, and comes back channels-first; a record of another shape, or without x or y, is an error
// saying what it holds; a folder's files come in name order.
#include "runner/data/cosmo_records.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "runner/data/tf_example.h"

namespace ergobench {
namespace {

namespace fs = std::filesystem;

const CosmoVolume kVolume{2, 3};  // 3 channels of 2^3 cells

// Channel c's cell i holds 100 c + i, channels first.
std::vector<int16_t> Counts() {
  std::vector<int16_t> counts(24);
  for (int c = 0; c < 3; ++c) {
    for (int i = 0; i < 8; ++i) counts[c * 8 + i] = static_cast<int16_t>(100 * c + i - (c == 2 ? 300 : 0));
  }
  return counts;
}

TEST(CosmoRecordsTest, TheVolumeTravelsChannelsLastAndComesBackChannelsFirst) {
  const std::vector<int16_t> counts = Counts();
  const float parameters[4] = {0.25f, -1.0f, 0.5f, 1.0f};
  const std::string record = EncodeCosmoRecord(counts.data(), parameters, kVolume);
  auto features = DecodeTfExample(record);
  ASSERT_TRUE(features.ok()) << features.status().ToString();
  const std::string& x = features->at("x").bytes.at(0);
  ASSERT_EQ(x.size(), 48u);
  // Cell 1's three channels, little-endian: 1, 101, -99 (0xff9d).
  EXPECT_EQ(x.substr(6, 6), std::string("\x01\x00\x65\x00\x9d\xff", 6));
  EXPECT_EQ(features->at("y").floats, (std::vector<float>{0.25f, -1.0f, 0.5f, 1.0f}));
  std::vector<int16_t> back(24);
  float parameters_back[4];
  ASSERT_TRUE(DecodeCosmoRecord(record, kVolume, back.data(), parameters_back).ok());
  EXPECT_EQ(back, counts);
  EXPECT_EQ(std::vector<float>(parameters_back, parameters_back + 4), std::vector<float>(parameters, parameters + 4));
}

TEST(CosmoRecordsTest, ARecordOfAnotherShapeOrWithoutXOrYSaysWhatItHolds) {
  const std::vector<int16_t> counts = Counts();
  const float parameters[4] = {};
  const std::string record = EncodeCosmoRecord(counts.data(), parameters, kVolume);
  std::vector<int16_t> out(64);
  float p[4];
  EXPECT_EQ(DecodeCosmoRecord(record, CosmoVolume{2, 4}, out.data(), p).message(),
            "feature x: 48 bytes, 24 counts; the model wants 4 x 2^3 = 32");
  TfFeatures features = *DecodeTfExample(record);
  features.erase("y");
  EXPECT_EQ(DecodeCosmoRecord(EncodeTfExample(features), kVolume, out.data(), p).message(),
            "feature y: want a float list of the 4 parameters");
  features["x"].kind = TfFeature::Kind::kFloat;
  EXPECT_EQ(DecodeCosmoRecord(EncodeTfExample(features), kVolume, out.data(), p).message(),
            "feature x: want one bytes value, the volume's int16 counts");
  EXPECT_NE(DecodeCosmoRecord("\x0a\x05", kVolume, out.data(), p).message().find("tf.train.Example"), std::string::npos);
}

TEST(CosmoRecordsTest, AFoldersTfRecordFilesInNameOrder) {
  const fs::path dir = fs::temp_directory_path() / ("cosmo_records_test_" + std::to_string(getpid()));
  fs::create_directories(dir / "sub.tfrecord");
  for (const char* name : {"univ_2.tfrecord", "univ_10.tfrecord", "README", "univ_1.tfrecord.gz"}) {
    std::ofstream(dir / name) << "";
  }
  auto files = ListTfRecordFiles(dir.string());
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ(*files, (std::vector<std::string>{(dir / "univ_10.tfrecord").string(), (dir / "univ_2.tfrecord").string()}));
  fs::remove_all(dir);
  EXPECT_EQ(ListTfRecordFiles(dir.string()).status().message(), dir.string() + ": not a folder");
}

}  // namespace
}  // namespace ergobench
