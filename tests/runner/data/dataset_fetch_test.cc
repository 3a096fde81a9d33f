// Fetching goes through the real libcurl, OpenSSL and libarchive, on file:// URLs, so the
// whole path runs without a network.
#include "runner/data/dataset_fetch.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class DatasetFetchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("fetch_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "src/cifar-10-batches-bin");
    std::ofstream(root_ / "src/cifar-10-batches-bin/data_batch_1.bin") << "batch one";
    std::ofstream(root_ / "src/cifar-10-batches-bin/test_batch.bin") << "test";
    // The archive is built with tar, as upstream ships CIFAR-10.
    const std::string command = "tar -C " + (root_ / "src").string() + " -czf " + Archive().string() +
                                " cifar-10-batches-bin";
    ASSERT_EQ(std::system(command.c_str()), 0);
    cache_ = (root_ / "cache").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path Archive() const { return root_ / "cifar-10-binary.tar.gz"; }
  std::string Url() const { return "file://" + Archive().string(); }

  fs::path root_;
  std::string cache_;
};

TEST_F(DatasetFetchTest, DownloadsChecksExtractsAndCaches) {
  auto sha = Sha256OfFile(Archive().string());
  ASSERT_TRUE(sha.ok());
  auto data = FetchDataset(Url(), *sha, cache_);
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  auto dir = FindDirectoryHolding(*data, "data_batch_1.bin");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  EXPECT_EQ(fs::path(*dir).filename(), "cifar-10-batches-bin");
  EXPECT_EQ(Read(fs::path(*dir) / "data_batch_1.bin"), "batch one");

  // Cached: a second fetch needs neither the source nor the network.
  fs::remove(Archive());
  auto again = FetchDataset(Url(), *sha, cache_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *data);
}

TEST_F(DatasetFetchTest, DamagedCachedArchiveIsFetchedAgain) {
  const std::string sha = *Sha256OfFile(Archive().string());
  fs::create_directories(fs::path(cache_) / sha);
  std::ofstream(fs::path(cache_) / sha / "cifar-10-binary.tar.gz") << "half a download";
  auto data = FetchDataset(Url(), sha, cache_);
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_TRUE(FindDirectoryHolding(*data, "test_batch.bin").ok());
  EXPECT_FALSE(fs::exists(fs::path(cache_) / sha / "cifar-10-binary.tar.gz.part"));
}

TEST_F(DatasetFetchTest, ChecksumMismatchIsRefused) {
  const std::string wrong(64, '0');
  auto data = FetchDataset(Url(), wrong, cache_);
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.status().message().find("spec.dataset.sha256: " + Url() + " has sha256 "), std::string::npos)
      << data.status().message();
  EXPECT_NE(data.status().message().find("expected " + wrong), std::string::npos);
  EXPECT_FALSE(fs::exists(fs::path(cache_) / wrong / "cifar-10-binary.tar.gz"));  // the bad download is gone
}

TEST_F(DatasetFetchTest, MissingSourceNamesTheUrl) {
  auto data = FetchDataset("file://" + (root_ / "absent.tar.gz").string(), std::string(64, 'a'), cache_);
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.status().message().find("cannot download file://"), std::string::npos) << data.status().message();
}

TEST_F(DatasetFetchTest, SingleCompressedFile) {
  std::ofstream(root_ / "train.svm") << "+1 1:0.5\n";
  ASSERT_EQ(std::system(("bzip2 -k " + (root_ / "train.svm").string()).c_str()), 0);
  const std::string bz2 = (root_ / "train.svm.bz2").string();
  auto data = FetchDataset("file://" + bz2, *Sha256OfFile(bz2), cache_);
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_EQ(Read(fs::path(*data) / "train.svm"), "+1 1:0.5\n");
}

TEST(Sha256Test, KnownDigest) {
  const std::string path = ::testing::TempDir() + "/abc.txt";
  std::ofstream(path) << "abc";
  EXPECT_EQ(*Sha256OfFile(path), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace ergobench
