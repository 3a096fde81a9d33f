#include "runner/artifact_shelf.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>

#include "base/http_get.h"

namespace ergobench {
namespace {

namespace fs = std::filesystem;

class ArtifactShelfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ergobench-shelf-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ / name, std::ios::binary) << content;
  }

  fs::path dir_;
};

TEST_F(ArtifactShelfTest, TakesTextFilesSmallestFirstAndNamesWhatItLeavesOut) {
  Write("rank-0.mllog", ":::MLLOG {\"key\": \"run_start\"}\n");   // 31 bytes
  Write("rank-0.summary", "rank 0 succeeded\n");               // 17
  Write("allreduce.json", std::string(40, 'x'));               // 40: over the cap once the others are in
  Write("trace.bin", std::string("\xff\xfe\x00\x01", 4));      // not UTF-8
  Write("with space.txt", "x");
  fs::create_directories(dir_ / "sub");

  const ArtifactBundle bundle = ReadArtifactDir(dir_.string(), 60);
  EXPECT_EQ(bundle.files, (std::map<std::string, std::string>{{"rank-0.mllog", ":::MLLOG {\"key\": \"run_start\"}\n"},
                                                              {"rank-0.summary", "rank 0 succeeded\n"}}));
  const std::vector<SkippedFile> skipped = {
      {"allreduce.json", 40, "over the 60 B rank 0 serves"},
      {"sub", 0, "not a regular file"},
      {"trace.bin", 4, "not UTF-8 text"},
      {"with space.txt", 1, "its name is not [-._a-zA-Z0-9]+"},
  };
  EXPECT_EQ(bundle.skipped, skipped);
}

TEST_F(ArtifactShelfTest, AMissingDirectoryIsAnEmptyBundle) {
  EXPECT_EQ(ReadArtifactDir((dir_ / "never-made").string(), 100), ArtifactBundle{});
}

// The exchange as the operator has it, over a real server: refused while the run goes on,
// then the bundle, then the release that ends rank 0's wait.
TEST_F(ArtifactShelfTest, ServedOverHttpOnceOfferedAndReleasedByAPost) {
  Write("rank-0.summary", "rank 0 succeeded\n");
  ArtifactShelf shelf(dir_.string());
  auto server = MetricsServer::Start(
      "127.0.0.1", 0, [] { return std::string(); }, nullptr, {},
      [&shelf](const RouteRequest& request) { return shelf.Answer(request); });
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  const int port = (*server)->port();

  const auto early = HttpGet("127.0.0.1", port, kArtifactsPath);
  EXPECT_NE(early.status().message().find("HTTP 409 the run has not ended"), std::string::npos)
      << early.status().ToString();
  EXPECT_FALSE(HttpRequest("POST", "127.0.0.1", port, kArtifactsReleasePath).ok());

  shelf.Offer();
  const auto served = HttpGet("127.0.0.1", port, kArtifactsPath);
  ASSERT_TRUE(served.ok()) << served.status().ToString();
  const auto bundle = DecodeArtifactBundle(*served);
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  EXPECT_EQ(bundle->files.at("rank-0.summary"), "rank 0 succeeded\n");
  EXPECT_NE(HttpRequest("GET", "127.0.0.1", port, kArtifactsReleasePath).status().message().find("HTTP 405"),
            std::string::npos);

  auto waited = std::async(std::launch::async, [&shelf] {
    return shelf.WaitForRelease(std::chrono::seconds(30), [] { return false; });
  });
  ASSERT_TRUE(HttpRequest("POST", "127.0.0.1", port, kArtifactsReleasePath).ok());
  ASSERT_EQ(waited.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(waited.get(), "released");
}

// On a cluster any pod reaches rank 0's port: with a token, nothing is served or released to
// a request without it, whatever the state of the run, and a wrong guess takes no longer to
// refuse than a right one takes to serve (CRYPTO_memcmp).
TEST_F(ArtifactShelfTest, WithATokenOnlyABearerOfItIsServedOrMayRelease) {
  Write("rank-0.summary", "rank 0 succeeded\n");
  ArtifactShelf shelf(dir_.string(), "s3cr3t-t0ken");
  auto server = MetricsServer::Start(
      "127.0.0.1", 0, [] { return std::string("ergobench_up 1\n"); }, nullptr, {},
      [&shelf](const RouteRequest& request) { return shelf.Answer(request); });
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  const int port = (*server)->port();
  const auto with = [](std::string token) { return HttpGetOptions{std::chrono::seconds(2), 1 << 20, std::move(token)}; };

  // Refused before anything else is said: not even whether the run has ended.
  EXPECT_NE(HttpGet("127.0.0.1", port, kArtifactsPath).status().message().find(
                "HTTP 401 the Benchmark's artifact token is required"),
            std::string::npos);
  EXPECT_NE(HttpGet("127.0.0.1", port, kArtifactsPath, with("s3cr3t-t0ke")).status().message().find("HTTP 401"),
            std::string::npos);
  EXPECT_NE(HttpGet("127.0.0.1", port, kArtifactsPath, with("s3cr3t-t0ken")).status().message().find("HTTP 409"),
            std::string::npos);
  EXPECT_TRUE(HttpGet("127.0.0.1", port, "/metrics").ok()) << "Prometheus needs no token";

  shelf.Offer();
  for (const char* wrong : {"", "s3cr3t-t0kem", "s3cr3t-t0ken2", "S3CR3T-T0KEN"}) {
    EXPECT_NE(HttpGet("127.0.0.1", port, kArtifactsPath, with(wrong)).status().message().find("HTTP 401"),
              std::string::npos) << wrong;
    EXPECT_NE(HttpRequest("POST", "127.0.0.1", port, kArtifactsReleasePath, with(wrong)).status().message().find("HTTP 401"),
              std::string::npos) << wrong;
  }
  const auto served = HttpGet("127.0.0.1", port, kArtifactsPath, with("s3cr3t-t0ken"));
  ASSERT_TRUE(served.ok()) << served.status().ToString();
  EXPECT_EQ(DecodeArtifactBundle(*served)->files.at("rank-0.summary"), "rank 0 succeeded\n");

  // The scheme is case-insensitive (RFC 7235), the token is not; the refusal names the scheme.
  const std::optional<HttpReply> lower = shelf.Answer({"GET", kArtifactsPath, "bearer s3cr3t-t0ken"});
  ASSERT_TRUE(lower.has_value());
  EXPECT_EQ(lower->status, 200);
  for (const char* wrong : {"Basic s3cr3t-t0ken", "Bearer  s3cr3t-t0ken", "Bearers3cr3t-t0ken", "s3cr3t-t0ken"}) {
    const std::optional<HttpReply> refused = shelf.Answer({"GET", kArtifactsPath, wrong});
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->status, 401) << wrong;
    EXPECT_EQ(refused->headers, (std::vector<std::pair<std::string, std::string>>{
                                    {"WWW-Authenticate", "Bearer realm=\"ergobench artifacts\""}}));
  }
  EXPECT_EQ(shelf.Answer({"GET", "/metrics", ""}), std::nullopt) << "other routes are not the shelf's";

  auto waited = std::async(std::launch::async, [&shelf] {
    return shelf.WaitForRelease(std::chrono::seconds(30), [] { return false; });
  });
  ASSERT_TRUE(HttpRequest("POST", "127.0.0.1", port, kArtifactsReleasePath, with("s3cr3t-t0ken")).ok());
  ASSERT_EQ(waited.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(waited.get(), "released");
}

TEST_F(ArtifactShelfTest, TheTokenFileIsReadWithoutItsLineEndAndABadOneNamesTheFlag) {
  EXPECT_EQ(*ReadArtifactToken(""), "") << "no file: no token";
  Write("token", "abc-123\n");
  EXPECT_EQ(*ReadArtifactToken((dir_ / "token").string()), "abc-123");
  const auto error = [&](const std::string& content) {
    Write("bad", content);
    return ReadArtifactToken((dir_ / "bad").string()).status().message();
  };
  const std::string bad = "--artifact-token-file " + (dir_ / "bad").string() + ": ";
  EXPECT_EQ(error(""), bad + "empty");
  EXPECT_EQ(error("\n"), bad + "empty");
  EXPECT_EQ(error("two words"), bad + "not printable ASCII");
  EXPECT_EQ(error("t\xc3\xb6ken"), bad + "not printable ASCII");
  EXPECT_EQ(error(std::string(4097, 'x')), bad + "over 4096 bytes");
  Write("longest", std::string(4096, 'y') + "\n");
  EXPECT_EQ(ReadArtifactToken((dir_ / "longest").string())->size(), 4096u);
  EXPECT_EQ(ReadArtifactToken((dir_ / "missing").string()).status().message(),
            "--artifact-token-file " + (dir_ / "missing").string() + ": cannot read it");
}

// Its tests that judge a time run in the quiet phase (ctest label measure).
class ArtifactShelfMeasureTest : public ArtifactShelfTest {};

TEST_F(ArtifactShelfMeasureTest, TheWaitEndsWhenTheLingerTimeIsUpOrAStopComes) {
  ArtifactShelf shelf(dir_.string());
  shelf.Offer();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(shelf.WaitForRelease(std::chrono::milliseconds(300), [] { return false; }),
            "nobody took them within 300.00 ms");
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
  std::atomic<bool> stop{false};
  auto waited = std::async(std::launch::async, [&] { return shelf.WaitForRelease(std::chrono::hours(1), [&] { return stop.load(); }); });
  stop = true;
  ASSERT_EQ(waited.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(waited.get(), "stopped");
}

}  // namespace
}  // namespace ergobench
