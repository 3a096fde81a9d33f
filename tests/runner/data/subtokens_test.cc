#include "runner/data/subtokens.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

// TensorFlow's official Transformer tokenizer tests (tokenizer_test.py), whose tokenizer
// MLBench's WMT17 archive was made with: each case's escaped tokens written as the subtokens'
// text, "_" ending each token.
TEST(SubtokensTest, TensorflowsTokenizerTestCases) {
  // test_decode: subtokens "test", "ing_", "123_".
  EXPECT_EQ("testing 123", DecodeSubtokens("testing_123_"));
  // test_join_tokens_to_string: ["test", "? ", "testing", "123", "."].
  EXPECT_EQ("test? testing 123.", DecodeSubtokens("test_? _testing_123_._"));
  // test_unescape_token.
  EXPECT_EQ("Underline: _, Backslash: \\, Unicode: 4", DecodeSubtokens("Underline: \\u, Backslash: \\\\, Unicode: \\52;_"));
  // test_escape_token's output, decoded back to its input "abc_\4".
  EXPECT_EQ("abc_\\4", DecodeSubtokens("abc\\u\\\\\\52;_"));
}

// Letters and numbers are Unicode's (categories L and N), not ASCII's: no space between a word
// and a quotation mark, one between two words of any script.
TEST(SubtokensTest, UnicodeLettersAndNumbersAreJoinedBySpaces) {
  EXPECT_EQ("Die Straße über 2½ Brücken", DecodeSubtokens("Die_Straße_über_2½_Brücken_"));
  EXPECT_EQ("er sagte „Haus“.", DecodeSubtokens("er_sagte_ „_Haus_“._"));
  EXPECT_EQ("日本 語", DecodeSubtokens("日本_語_"));
}

// Escapes of what is not a character become U+3013, as tensor2tensor's do; anything that
// is not an escape stays as it is.
TEST(SubtokensTest, BadEscapesAndEmptyTokens) {
  EXPECT_EQ("\xE3\x80\x93", DecodeSubtokens("\\1114112;_"));                  // past U+10FFFF
  EXPECT_EQ("\xE3\x80\x93", DecodeSubtokens("\\55296;_"));                    // a surrogate
  EXPECT_EQ("\xE3\x80\x93", DecodeSubtokens("\\99999999999999999999999;_"));  // no overflow
  EXPECT_EQ("\\12 \\;x\\", DecodeSubtokens("\\12 \\;x\\_"));
  EXPECT_EQ("", DecodeSubtokens(""));
  EXPECT_EQ("a b", DecodeSubtokens("__a___b"));  // empty tokens vanish; the last needs no "_"
}

TEST(SubtokensTest, ThisBuildDecodesThem) { EXPECT_TRUE(CheckSubtokensSupported().ok()); }

}  // namespace
}  // namespace ergobench
