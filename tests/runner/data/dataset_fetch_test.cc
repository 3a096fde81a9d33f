// Fetching goes through the real libcurl, OpenSSL and libarchive, on file:// URLs (and, for
// the connections' checks, a one-answer HTTP server on loopback), so the whole path runs
// without a network.
#include "runner/data/dataset_fetch.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "base/free_port.h"
#include "tests/testing/canned_server.h"

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
  // The limits of a run that allows file:// URLs, as these tests need.
  static FetchLimits Files() {
    FetchLimits limits;
    limits.allow_file_urls = true;
    return limits;
  }
  // A tar.gz of src/<what>, built by tar with whatever entries the test made there.
  std::string TarOf(const std::string& what) {
    const std::string archive = (root_ / (what + ".tar.gz")).string();
    EXPECT_EQ(std::system(("tar -C " + (root_ / "src").string() + " -czf " + archive + " " + what).c_str()), 0);
    return archive;
  }
  StatusOr<std::string> FetchFile(const std::string& archive, const FetchLimits& limits) {
    return FetchDataset("file://" + archive, *Sha256OfFile(archive), cache_, limits);
  }
  std::string Url() const { return "file://" + Archive().string(); }

  fs::path root_;
  std::string cache_;
};

TEST_F(DatasetFetchTest, DownloadsChecksExtractsAndCaches) {
  auto sha = Sha256OfFile(Archive().string());
  ASSERT_TRUE(sha.ok());
  auto data = FetchDataset(Url(), *sha, cache_, Files());
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  auto dir = FindDirectoryHolding(*data, "data_batch_1.bin");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  EXPECT_EQ(fs::path(*dir).filename(), "cifar-10-batches-bin");
  EXPECT_EQ(Read(fs::path(*dir) / "data_batch_1.bin"), "batch one");

  // Cached: a second fetch needs neither the source nor the network.
  fs::remove(Archive());
  auto again = FetchDataset(Url(), *sha, cache_, Files());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *data);
}

TEST_F(DatasetFetchTest, DamagedCachedArchiveIsFetchedAgain) {
  const std::string sha = *Sha256OfFile(Archive().string());
  fs::create_directories(fs::path(cache_) / sha / "download");
  std::ofstream(fs::path(cache_) / sha / "download/cifar-10-binary.tar.gz") << "half a download";
  auto data = FetchDataset(Url(), sha, cache_, Files());
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_TRUE(FindDirectoryHolding(*data, "test_batch.bin").ok());
  EXPECT_FALSE(fs::exists(fs::path(cache_) / sha / "download/cifar-10-binary.tar.gz.part"));
}

// An interrupted download is continued, not started over: the source's first half is
// overwritten after the part was written, so only a continued download matches the sha256.
TEST_F(DatasetFetchTest, AnInterruptedDownloadIsContinuedWhereItStopped) {
  const std::string original = Read(Archive());
  const std::string sha = *Sha256OfFile(Archive().string());
  const size_t half = original.size() / 2;
  fs::create_directories(fs::path(cache_) / sha / "download");
  std::ofstream(fs::path(cache_) / sha / "download/cifar-10-binary.tar.gz.part", std::ios::binary) << original.substr(0, half);
  std::ofstream(Archive(), std::ios::binary) << std::string(half, '\0') << original.substr(half);
  auto data = FetchDataset(Url(), sha, cache_, Files());
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_EQ(Read(fs::path(*FindDirectoryHolding(*data, "data_batch_1.bin")) / "data_batch_1.bin"), "batch one");
}

// A part that is not this file's start (another version, a damaged disk) is fetched afresh.
TEST_F(DatasetFetchTest, AContinuedDownloadThatDoesNotMatchIsFetchedAfresh) {
  const std::string sha = *Sha256OfFile(Archive().string());
  fs::create_directories(fs::path(cache_) / sha / "download");
  std::ofstream(fs::path(cache_) / sha / "download/cifar-10-binary.tar.gz.part") << "not the start of it";
  auto data = FetchDataset(Url(), sha, cache_, Files());
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_TRUE(FindDirectoryHolding(*data, "test_batch.bin").ok());
}

TEST_F(DatasetFetchTest, ChecksumMismatchIsRefused) {
  const std::string wrong(64, '0');
  auto data = FetchDataset(Url(), wrong, cache_, Files());
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.status().message().find("spec.dataset.sha256: " + Url() + " has sha256 "), std::string::npos)
      << data.status().message();
  EXPECT_NE(data.status().message().find("expected " + wrong), std::string::npos);
  EXPECT_FALSE(fs::exists(fs::path(cache_) / wrong / "download/cifar-10-binary.tar.gz"));  // the bad download is gone
}

TEST_F(DatasetFetchTest, MissingSourceNamesTheUrl) {
  auto data = FetchDataset("file://" + (root_ / "absent.tar.gz").string(), std::string(64, 'a'), cache_, Files());
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.status().message().find("cannot download file://"), std::string::npos) << data.status().message();
}

TEST_F(DatasetFetchTest, SingleCompressedFile) {
  std::ofstream(root_ / "train.svm") << "+1 1:0.5\n";
  ASSERT_EQ(std::system(("bzip2 -k " + (root_ / "train.svm").string()).c_str()), 0);
  const std::string bz2 = (root_ / "train.svm.bz2").string();
  auto data = FetchDataset("file://" + bz2, *Sha256OfFile(bz2), cache_, Files());
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_EQ(Read(fs::path(*data) / "train.svm"), "+1 1:0.5\n");
}

// A node's own files are not the author's to read: file:// only when the run allows it.
TEST_F(DatasetFetchTest, OnlyHttpUnlessFileUrlsAreAllowed) {
  const std::string sha = *Sha256OfFile(Archive().string());
  for (const std::string& url : {Url(), std::string("ftp://example.org/a.tar.gz"), std::string("gopher://x/")}) {
    auto data = FetchDataset(url, sha, cache_, FetchLimits{});
    ASSERT_FALSE(data.ok()) << url;
    EXPECT_EQ(data.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(data.status().message().find("spec.dataset.url: only http:// and https://"), std::string::npos)
        << data.status().message();
  }
  EXPECT_TRUE(FetchDataset(Url(), sha, cache_, Files()).ok());
}

TEST_F(DatasetFetchTest, ADownloadOverTheLimitIsRefused) {
  FetchLimits limits = Files();
  limits.max_download_bytes = 64;
  auto data = FetchDataset(Url(), *Sha256OfFile(Archive().string()), cache_, limits);
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.status().message().find("larger than 64 bytes"), std::string::npos) << data.status().message();
}

// An archive holds files, folders and links that stay inside it. A link to /etc, a FIFO (which
// blocks whoever opens it) or a device node is refused, naming the entry.
TEST_F(DatasetFetchTest, OnlyFilesFoldersAndInsideLinksAreExtracted) {
  fs::create_directories(root_ / "src/bad");
  fs::create_symlink("/etc/passwd", root_ / "src/bad/passwd");
  auto outside = FetchFile(TarOf("bad"), Files());
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("refusing link bad/passwd -> /etc/passwd"), std::string::npos)
      << outside.status().message();

  fs::create_directories(root_ / "src/climb/deep");
  fs::create_symlink("../../../x", root_ / "src/climb/deep/up");
  EXPECT_FALSE(FetchFile(TarOf("climb"), Files()).ok());

  fs::create_directories(root_ / "src/pipe");
  ASSERT_EQ(mkfifo((root_ / "src/pipe/fifo").c_str(), 0644), 0);
  auto fifo = FetchFile(TarOf("pipe"), Files());
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.status().message().find("refusing pipe/fifo: not a file, folder or link"), std::string::npos)
      << fifo.status().message();

  fs::create_directories(root_ / "src/good/sub");
  std::ofstream(root_ / "src/good/sub/file.bin") << "ok";
  fs::create_symlink("sub/file.bin", root_ / "src/good/alias.bin");
  auto good = FetchFile(TarOf("good"), Files());
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ(Read(fs::path(*good) / "good/alias.bin"), "ok");
}

// The audit's Medium: each link checked alone stayed inside, while the chain led out: chain/s2
// is chain itself, chain/s1 the data folder, chain/s3 the folder above it.
TEST_F(DatasetFetchTest, AChainOfLinksCannotLeadOutside) {
  fs::create_directories(root_ / "src/chain");
  fs::create_symlink(".", root_ / "src/chain/s2");
  fs::create_symlink("s2/..", root_ / "src/chain/s1");
  fs::create_symlink("s1/..", root_ / "src/chain/s3");
  const std::string archive = TarOf("chain");
  auto chained = FetchFile(archive, Files());
  ASSERT_FALSE(chained.ok());
  EXPECT_EQ(chained.status().message(), (fs::canonical(cache_) / *Sha256OfFile(archive)).string() +
                                            "/download/chain.tar.gz: refusing link chain/s3 -> s1/..: it leads outside "
                                            "the archive");
  EXPECT_FALSE(fs::exists(fs::path(cache_) / *Sha256OfFile(archive) / "data")) << "what it left is removed";
}

// The audit's Low: the archive took its file name from the url, so "…/.complete" marked a
// data set staged before it was, and "…/data" was the folder it extracts into.
TEST_F(DatasetFetchTest, AnArchiveNamedLikeTheCachesOwnFilesIsKeptApart) {
  for (const char* name : {".complete", "data", ".lock"}) {
    fs::remove_all(cache_);
    const fs::path copy = root_ / name;
    fs::copy_file(Archive(), copy, fs::copy_options::overwrite_existing);
    auto data = FetchDataset("file://" + copy.string(), *Sha256OfFile(copy.string()), cache_, Files());
    ASSERT_TRUE(data.ok()) << name << ": " << data.status().ToString();
    EXPECT_TRUE(FindDirectoryHolding(*data, "test_batch.bin").ok()) << name;
  }
}

// The audit's Low: a full disk was "corrupt entry", a verdict no retry mends. A file-size limit
// makes the write fail here as a full disk does: the error names the write, and may be retried.
TEST_F(DatasetFetchTest, AFailedWriteIsNotACorruptArchive) {
  fs::create_directories(root_ / "src/big");
  std::ofstream(root_ / "src/big/zeros.bin") << std::string(1 << 20, '\0');
  const std::string archive = TarOf("big");  // about 1 KiB compressed
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  rlimit small = before;
  small.rlim_cur = 64 << 10;
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // the write fails with EFBIG instead
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  auto fetched = FetchFile(archive, Files());
  setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, old_handler);
  ASSERT_FALSE(fetched.ok());
  EXPECT_EQ(fetched.status().code(), StatusCode::kUnavailable) << fetched.status().ToString();
  EXPECT_NE(fetched.status().message().find(": cannot write big/zeros.bin: "), std::string::npos)
      << fetched.status().message();
  EXPECT_EQ(fetched.status().message().find("corrupt"), std::string::npos);
}

// The audit's SSRF: a Dataset's url reached the cloud's metadata service, loopback and the
// cluster's services, redirects included. On a cluster each connection's address is checked.
TEST_F(DatasetFetchTest, OnAClusterNoConnectionReachesAnInternalAddress) {
  FetchLimits cluster;
  cluster.refuse_internal_networks = true;
  const std::string sha(64, 'a');
  const std::string nothing = "http://127.0.0.1:" + std::to_string(*FreePort()) + "/x.tgz";
  auto refused = FetchDataset(nothing, sha, cache_, cluster);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << "no retry mends it";
  EXPECT_EQ(refused.status().message(),
            "spec.dataset.url: refusing to connect to an internal address (loopback, link-local or a private range): a "
            "mirror inside the cluster's networks needs its range in the operator's policy.datasetAllowedNetworks");

  // Allowed, the connection is tried (and fails: nothing listens there).
  cluster.allowed_networks = {*ParseCidr("127.0.0.1/32")};
  auto tried = FetchDataset(nothing, sha, cache_, cluster);
  ASSERT_FALSE(tried.ok());
  EXPECT_EQ(tried.status().code(), StatusCode::kUnavailable) << tried.status().ToString();

  // An allowed server's redirect to another internal address is refused at its connection.
  const int elsewhere = *FreePort();
  testing::CannedServer redirect("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.2:" + std::to_string(elsewhere) +
                                     "/x.tgz\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                                 /*after_request=*/true);
  auto redirected = FetchDataset("http://127.0.0.1:" + std::to_string(redirect.port()) + "/x.tgz", sha, cache_, cluster);
  ASSERT_FALSE(redirected.ok());
  EXPECT_NE(redirected.status().message().find("refusing to connect to an internal address"), std::string::npos)
      << redirected.status().message();
}

TEST(FetchLimitsTest, TheOperatorsPodsSayWhatIsRefusedAndAllowed) {
  setenv("ERGOBENCH_FETCH_REFUSE_INTERNAL", "1", 1);
  setenv("ERGOBENCH_FETCH_ALLOWED_NETWORKS", "10.20.0.0/16,not-a-network,fd00::/8", 1);
  const FetchLimits limits = FetchLimits::FromEnv();
  unsetenv("ERGOBENCH_FETCH_REFUSE_INTERNAL");
  unsetenv("ERGOBENCH_FETCH_ALLOWED_NETWORKS");
  EXPECT_TRUE(limits.refuse_internal_networks);
  ASSERT_EQ(limits.allowed_networks.size(), 2u) << "what does not parse allows nothing";
  EXPECT_EQ(limits.allowed_networks[0].text, "10.20.0.0/16");
  EXPECT_EQ(limits.allowed_networks[1].text, "fd00::/8");
  EXPECT_FALSE(FetchLimits::FromEnv().refuse_internal_networks) << "a local run fetches from anywhere";
}

TEST_F(DatasetFetchTest, ExtractionIsBoundedInBytesAndEntries) {
  fs::create_directories(root_ / "src/many");
  for (int i = 0; i < 5; ++i) std::ofstream(root_ / "src/many" / std::to_string(i)) << std::string(1000, 'x');
  const std::string archive = TarOf("many");
  FetchLimits limits = Files();
  limits.max_extracted_bytes = 3000;
  auto bytes = FetchFile(archive, limits);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("more than 3000 bytes"), std::string::npos) << bytes.status().message();
  limits = Files();
  limits.max_entries = 4;
  fs::remove_all(cache_);
  auto entries = FetchFile(archive, limits);
  ASSERT_FALSE(entries.ok());
  EXPECT_NE(entries.status().message().find("more than 4 entries"), std::string::npos) << entries.status().message();
}

// A symbolic link among the cache's own parents (a ~/.cache on another disk, say) broke every
// extraction: libarchive's secure-symlinks check saw it in each destination path.
TEST_F(DatasetFetchTest, ACacheBehindASymbolicLinkWorks) {
  fs::create_directories(root_ / "real-cache");
  fs::create_symlink(root_ / "real-cache", root_ / "linked-cache");
  auto data = FetchDataset(Url(), *Sha256OfFile(Archive().string()), (root_ / "linked-cache").string(), Files());
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_TRUE(FindDirectoryHolding(*data, "data_batch_1.bin").ok());
}

TEST(Sha256Test, KnownDigest) {
  const std::string path = ::testing::TempDir() + "/abc.txt";
  std::ofstream(path) << "abc";
  EXPECT_EQ(*Sha256OfFile(path), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace ergobench
