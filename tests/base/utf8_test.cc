#include "base/utf8.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ergobench {
namespace {

TEST(Utf8, ACutNeverSplitsACharacter) {
  const std::string e = "\u00e9";          // 2 bytes
  const std::string euro = "\u20ac";       // 3 bytes
  const std::string emoji = "\U0001F600";  // 4 bytes
  EXPECT_EQ(TruncateUtf8("x" + e, 2), "x");
  EXPECT_EQ(TruncateUtf8("x" + e, 3), "x" + e);
  EXPECT_EQ(TruncateUtf8(euro + euro, 5), euro);
  EXPECT_EQ(TruncateUtf8(euro + euro, 4), euro);
  EXPECT_EQ(TruncateUtf8(emoji + "a", 3), "");
  EXPECT_EQ(TruncateUtf8(emoji + "a", 4), emoji);
  EXPECT_EQ(TruncateUtf8("abc", 0), "");
  EXPECT_EQ(TruncateUtf8("abc", 10), "abc");
}

TEST(Utf8, EveryCutOfMixedTextIsValidJson) {
  std::string text;
  for (int i = 0; i < 50; ++i) text += "a\u00e9\u20ac\U0001F600";
  for (size_t max = 0; max <= text.size(); ++max) {
    const std::string cut = TruncateUtf8(text, max);
    EXPECT_LE(cut.size(), max);
    EXPECT_GE(cut.size() + 3, max) << "no more than one character is dropped";
    EXPECT_NO_THROW(nlohmann::json(cut).dump()) << max;
  }
}

TEST(Utf8, FirstInvalidByte) {
  EXPECT_EQ(FirstInvalidUtf8("plain ascii"), std::string_view::npos);
  EXPECT_EQ(FirstInvalidUtf8("caf\u00e9 \u20ac \U0001F600"), std::string_view::npos);
  EXPECT_EQ(FirstInvalidUtf8("/usr\xff/share"), 4u);
  EXPECT_EQ(FirstInvalidUtf8("ab\xc3"), 2u) << "cut short";
  EXPECT_EQ(FirstInvalidUtf8("\xc0\xaf"), 0u) << "overlong /";
  EXPECT_EQ(FirstInvalidUtf8("x\xed\xa0\x80"), 1u) << "a surrogate";
  EXPECT_EQ(FirstInvalidUtf8("\xf4\x90\x80\x80"), 0u) << "past U+10FFFF";
  EXPECT_EQ(FirstInvalidUtf8("\x80"), 0u) << "a lone continuation byte";
}

TEST(Utf8, AbbreviateMarksTheCut) {
  EXPECT_EQ(AbbreviateUtf8("short", 10), "short");
  EXPECT_EQ(AbbreviateUtf8("abcdefghij", 8), "abcde...");
  EXPECT_EQ(AbbreviateUtf8("ab\u00e9\u00e9", 6), "ab\u00e9\u00e9");
  EXPECT_EQ(AbbreviateUtf8("ab\u00e9\u00e9", 5), "ab...");
}

}  // namespace
}  // namespace ergobench
