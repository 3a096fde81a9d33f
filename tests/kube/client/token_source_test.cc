#include "kube/client/token_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ergobench::kube {
namespace {

TEST(TokenSource, FixedToken) {
  TokenSource tokens("abc", "");
  EXPECT_EQ(*tokens.Token(), "abc");
}

TEST(TokenSource, RereadsARotatedFile) {
  const auto path = std::filesystem::temp_directory_path() / ("token-" + std::to_string(::getpid()));
  std::ofstream(path) << "first\n";
  TokenSource tokens("", path.string());
  EXPECT_EQ(*tokens.Token(), "first");
  // The kubelet swaps in a new token; size differs, so no mtime granularity is needed.
  std::ofstream(path) << "second-token\n";
  EXPECT_EQ(*tokens.Token(), "second-token");
  // Mid-rotation the file may be missing for a moment: the last token still serves.
  std::filesystem::remove(path);
  EXPECT_EQ(*tokens.Token(), "second-token");
  TokenSource never("", path.string());
  EXPECT_EQ(never.Token().status().code(), StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace ergobench::kube
