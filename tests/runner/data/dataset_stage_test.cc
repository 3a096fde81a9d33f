// ergobench-stage's work on file:// URLs: what it reports, and that a verdict no retry mends
// is kept, so that the kubelet's restart of the try does not fetch again.
#include "runner/data/dataset_stage.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ergobench {
namespace {

namespace fs = std::filesystem;

class DatasetStageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("stage_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "src/cifar-10-batches-bin");
    std::ofstream(root_ / "src/cifar-10-batches-bin/data_batch_1.bin") << "batch one";
    std::ofstream(root_ / "src/cifar-10-batches-bin/test_batch.bin") << "test";
    const std::string tar = "tar -C " + (root_ / "src").string() + " -czf " + Archive() + " cifar-10-batches-bin";
    ASSERT_EQ(std::system(tar.c_str()), 0);
    options_.url = "file://" + Archive();
    options_.sha256 = *Sha256OfFile(Archive());
    options_.into = (root_ / "claim").string();
    options_.verdict_file = (root_ / "tmp/verdict").string();
    fs::create_directories(root_ / "claim");
    fs::create_directories(root_ / "tmp");
    limits_.allow_file_urls = true;
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string Archive() const { return (root_ / "cifar-10-binary.tar.gz").string(); }

  fs::path root_;
  StageOptions options_;
  FetchLimits limits_;
};

// Its tests that judge a time run in the quiet phase (ctest label measure).
class DatasetStageMeasureTest : public DatasetStageTest {};

TEST_F(DatasetStageMeasureTest, ReportsWhereTheDataIsAndHowMuch) {
  const auto start = std::chrono::steady_clock::now();
  const StageOutcome outcome = StageDataset(options_, limits_);
  const std::chrono::duration<double> outside = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(outcome.exit_code, 0) << outcome.result;
  const nlohmann::json result = nlohmann::json::parse(outcome.result);
  EXPECT_EQ(result["path"], options_.sha256 + "/data");
  EXPECT_EQ(result["files"], 2);
  EXPECT_EQ(result["bytes"], 13);  // "batch one" and "test"
  // The fetch, check and extraction: within the call's own time.
  ASSERT_TRUE(result["seconds"].is_number()) << outcome.result;
  EXPECT_GT(result["seconds"].get<double>(), 0.0);
  EXPECT_LE(result["seconds"].get<double>(), outside.count());
}

TEST_F(DatasetStageTest, ANetworkErrorMayBeRetried) {
  fs::remove(Archive());
  const StageOutcome outcome = StageDataset(options_, limits_);
  EXPECT_EQ(outcome.exit_code, kStagingExitRetry);
  EXPECT_NE(outcome.result.find("cannot download"), std::string::npos) << outcome.result;
  EXPECT_FALSE(fs::exists(options_.verdict_file));
}

// The restarted try repeats the verdict without fetching: the source is gone by then, and a
// fetch would have said so.
TEST_F(DatasetStageTest, AVerdictNoRetryMendsIsKeptForTheNextTry) {
  options_.sha256 = std::string(64, '0');
  const StageOutcome first = StageDataset(options_, limits_);
  EXPECT_EQ(first.exit_code, kStagingExitPermanent);
  EXPECT_NE(first.result.find("expected " + options_.sha256), std::string::npos) << first.result;
  fs::remove(Archive());
  const StageOutcome again = StageDataset(options_, limits_);
  EXPECT_EQ(again.exit_code, kStagingExitPermanent);
  EXPECT_EQ(again.result, first.result);
}

// On the claim the verdicts' folder is not there before the first one.
TEST_F(DatasetStageTest, TheVerdictsFolderIsMadeForTheFirstVerdict) {
  options_.sha256 = std::string(64, '0');
  options_.verdict_file = (root_ / "claim/.ergobench-verdicts/uid.1").string();
  const StageOutcome first = StageDataset(options_, limits_);
  EXPECT_EQ(first.exit_code, kStagingExitPermanent);
  fs::remove(Archive());
  const StageOutcome again = StageDataset(options_, limits_);
  EXPECT_EQ(again.exit_code, kStagingExitPermanent);
  EXPECT_EQ(again.result, first.result);
}

}  // namespace
}  // namespace ergobench
