#include "api/contract/artifact_bundle.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ergobench {
namespace {

// A bundle holding one file of this name.
std::string BundleWithFile(const std::string& name) {
  return nlohmann::json{{"files", {{name, "x"}}}, {"skipped", nlohmann::json::array()}}.dump();
}

TEST(ArtifactBundleTest, RoundTrips) {
  ArtifactBundle bundle;
  bundle.files = {{"rank-0.mllog", ":::MLLOG {}\n"}, {"allreduce.csv", "bytes,busbw\n4,1e3\n"}};
  bundle.skipped = {{"trace.bin", 4, "not UTF-8 text"}};
  const auto decoded = DecodeArtifactBundle(EncodeArtifactBundle(bundle));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, bundle);
}

TEST(ArtifactBundleTest, NamesThatCouldEscapeAFolderOrAConfigMapAreRefused) {
  for (const char* name : {"..", ".", "a/b", "../x", "", "x y", "ü"}) {
    EXPECT_FALSE(IsPortableFileName(name)) << name;
    const auto decoded = DecodeArtifactBundle(BundleWithFile(name));
    EXPECT_EQ(decoded.status().code(), StatusCode::kInvalidArgument) << name;
  }
  EXPECT_TRUE(IsPortableFileName("rank-0.mllog"));
  EXPECT_TRUE(IsPortableFileName("..hidden"));
}

TEST(ArtifactBundleTest, ShapesOtherThanTheBundleAreRefused) {
  for (const char* text : {"", "[]", "{\"files\": []}", "{\"files\": {}, \"skipped\": [{\"name\": 1}]}",
                           "{\"files\": {\"a\": 3}, \"skipped\": []}"}) {
    EXPECT_EQ(DecodeArtifactBundle(text).status().code(), StatusCode::kInvalidArgument) << text;
  }
}

}  // namespace
}  // namespace ergobench
