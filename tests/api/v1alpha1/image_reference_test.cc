#include "api/v1alpha1/image_reference.h"

#include <gtest/gtest.h>

#include <string>

namespace ergobench {
namespace {

const std::string kHex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

TEST(ImageReferenceTest, TheFormsAKubeletAccepts) {
  for (const std::string& good :
       {std::string("runner"), std::string("ergobench-runner:0.2.0"), std::string("registry.example:5000/team/runner:v1"),
        std::string("localhost/ergobench-runner:latest"), std::string("a.b/c__d/e-f.g@sha256:") + kHex64,
        std::string("ghcr.io/org/runner:1.2@sha256:") + kHex64, std::string("Registry.Example/runner"),
        std::string("r/a---b"), std::string("runner:_x"), std::string("runner@sha256+b64.x_y-z:") + kHex64,
        std::string("runner:") + std::string(128, 't')}) {
    EXPECT_TRUE(IsImageReference(good)) << good;
  }
}

TEST(ImageReferenceTest, AnythingElse) {
  for (const std::string& bad :
       {std::string("x; rm -rf /"), std::string("Runner:1"), std::string("runner:"), std::string("runner:-x"),
        std::string("/runner"), std::string("runner@sha256:12"), std::string("a//b"), std::string("runner:1 "),
        std::string(""), std::string("r/a___b"), std::string("r/a_"), std::string("r/-a"), std::string("-r.io/a"),
        std::string("r.io:/a"), std::string("r.io:50a/a"), std::string("runner:") + std::string(129, 't'),
        std::string("runner@1sha:") + kHex64, std::string("runner@sha256:") + kHex64 + "g",
        std::string("a/Registry.Example/runner"), std::string("runner@sha256:") + kHex64 + "@sha256:" + kHex64}) {
    EXPECT_FALSE(IsImageReference(bad)) << bad;
  }
}

// ValidateImage caps references at 512 bytes before they get here; the grammar holds at any length.
TEST(ImageReferenceTest, AHundredThousandCharactersTakeNoStack) {
  std::string path = "r";
  while (path.size() < 100000) path += "-r";
  EXPECT_TRUE(IsImageReference(path + ":v1"));
  EXPECT_FALSE(IsImageReference(path + "-"));
}

}  // namespace
}  // namespace ergobench
