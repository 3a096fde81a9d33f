#include "cli/output_format.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

TEST(OutputFormatTest, JsonIsAStreamOfIndentedDocuments) {
  EXPECT_EQ(*FormatDocuments({{{"a", 1}}, {{"b", "x"}}}, "json"), "{\n  \"a\": 1\n}\n{\n  \"b\": \"x\"\n}\n");
}

TEST(OutputFormatTest, YamlIsOneDocumentEach) {
  EXPECT_EQ(*FormatDocuments({{{"a", 1}}, {{"b", "1.0"}}}, "yaml"), "---\na: 1\n---\nb: \"1.0\"\n");
}

TEST(OutputFormatTest, AnotherFormatNamesTheFlagAndTheChoices) {
  EXPECT_EQ(FormatDocuments({}, "xml").status().message(), "-o xml: expected one of json, yaml");
  EXPECT_TRUE(CheckOutputFormat("--format", "csv", {"text", "csv"}).ok());
}

}  // namespace
}  // namespace ergobench
