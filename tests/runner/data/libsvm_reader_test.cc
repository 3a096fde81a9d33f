#include "runner/data/libsvm_reader.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

TEST(LibsvmReaderTest, SparseAndDense) {
  auto data = ParseLibsvm("+1 1:0.5 3:-2\n-1 2:1e-1\n# comment\n\n0 4:3\r\n1\n", "t.svm");
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_EQ(data->count, 4);
  EXPECT_EQ(data->features, 4);
  EXPECT_EQ(data->labels, (std::vector<float>{1, 0, 0, 1}));
  EXPECT_EQ(data->row_offsets, (std::vector<int64_t>{0, 2, 3, 4, 4}));
  EXPECT_EQ(data->indices, (std::vector<int32_t>{0, 2, 1, 3}));
  EXPECT_EQ(data->ToDense(), (std::vector<float>{0.5f, 0, -2, 0, 0, 0.1f, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0}));
}

TEST(LibsvmReaderTest, FixedWidth) {
  auto data = ParseLibsvm("1 2:1\n", "t.svm", 2000);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->features, 2000);
  EXPECT_NE(ParseLibsvm("1 2001:1\n", "t.svm", 2000).status().message().find("t.svm:1: feature index 2001 exceeds 2000"),
            std::string::npos);
}

TEST(LibsvmReaderTest, ErrorsNameFileAndLine) {
  auto check = [](const std::string& text, const std::string& expected) {
    auto data = ParseLibsvm(text, "e.svm");
    ASSERT_FALSE(data.ok()) << text;
    EXPECT_EQ(data.status().message(), expected);
  };
  check("1 1:1\n2 1:1\n", "e.svm:2: label \"2\" is not -1, 0 or +1");
  check("1 0:1\n", "e.svm:1: feature index 0 is not 1-based");
  check("1 3:1 2:1\n", "e.svm:1: feature index 2 does not increase");
  check("1 3=1\n", "e.svm:1: \"3=1\" is not index:value");
  check("1 3:x\n", "e.svm:1: \"3:x\" is not index:value");
  check("\n# nothing\n", "e.svm: holds no samples");
  EXPECT_EQ(ReadLibsvm("/nonexistent.svm").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ergobench
