#include "runner/metrics/tokenizer_13a.h"

#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ergobench {
namespace {

using ::testing::ElementsAre;

// Inputs and outputs of sacreBLEU 2.6.0's Tokenizer13a (github mjpost/sacrebleu at f615c72),
// run on each input: its test suite checks 13a only through BLEU scores (bleu_test.cc).
const std::vector<std::pair<std::string, std::string>> kSacreBleu = {
    {"&quot;Hello&quot; &amp; &lt;world&gt;", "\" Hello \" & < world >"},
    {"&amp;quot;", "& quot ;"},
    {"a <skipped> b", "a b"},
    {"well-\nknown", "wellknown"},
    {"line1\nline2", "line1 line2"},
    {"Pi is 3.14, or 3,14.", "Pi is 3.14 , or 3,14 ."},
    {"1,000.50 dollars", "1,000.50 dollars"},
    {"2-3 and a-b and -5 and 10 - 20", "2 - 3 and a-b and -5 and 10 - 20"},
    {"Wait... what?!", "Wait . . . what ? !"},
    {"Mr. Smith's car isn't here.", "Mr . Smith's car isn't here ."},
    {"$5.00!", "$ 5.00 !"},
    {"U.S.A.", "U . S . A ."},
    {"(test) [x] {y}", "( test ) [ x ] { y }"},
    {"a/b x@y.com #tag 50%", "a / b x @ y . com # tag 50 %"},
    {"a\tb  c", "a b c"},
    {"a\u00a0b", "a b"},
    {"a\u3000b", "a b"},
    {"a\u200bb", "a\u200bb"},
    {"1.2.3", "1.2.3"},
    {"a..b", "a . . b"},
    {"x.,y", "x . , y"},
    {".5", ". 5"},
    {"5.", "5 ."},
    {",5", ", 5"},
    {"e.g.", "e . g ."},
    {"a.1", "a . 1"},
    {"1.a", "1 . a"},
    {"a,1", "a , 1"},
    {"1,a", "1 , a"},
    {"\"quoted\"", "\" quoted \""},
    {"`back` ~tilde~ ^caret_ |pipe| \\slash", "` back ` ~ tilde ~ ^ caret _ | pipe | \\ slash"},
    {"it's 'single'", "it's 'single'"},
    {"x=y+z*2", "x = y + z * 2"},
    {"a;b:c", "a ; b : c"},
    {"\u00dcber caf\u00e9.", "\u00dcber caf\u00e9 ."},
    {"   leading and trailing   ", "leading and trailing"},
    {"", ""},
    {"<b>bold</b>", "< b > bold < / b >"},
    {"3-", "3 -"},
    {"-3", "-3"},
    {"a-", "a-"},
    {"1--2", "1 - -2"},
    {".,.", ". , ."},
    {"3.,4", "3 . , 4"},
    {"produc\u0163ia de zah\u0103r brut se exprim\u0103 \u00een zah\u0103r alb;",
     "produc\u0163ia de zah\u0103r brut se exprim\u0103 \u00een zah\u0103r alb ;"},
    {"It wasn't surprising.", "It wasn't surprising ."},
};

TEST(Tokenize13aTest, GivesWhatSacreBleuGives) {
  for (const auto& [input, expected] : kSacreBleu) EXPECT_EQ(expected, Tokenize13a(input)) << input;
}

TEST(Tokenize13aTest, KeepsBytesThatAreNotUtf8AsTheyAre) {
  // A lone continuation byte 0x85 is not U+0085 (NEL), a space; a cut 3-byte character is no
  // character either. Neither is a digit: the period after each is set apart.
  EXPECT_EQ("a\x85 . b", Tokenize13a("a\x85.b"));
  EXPECT_EQ("\xe2\x82 .", Tokenize13a("\xe2\x82."));
}

TEST(SplitOnWhitespaceTest, SplitsAsPythonsStrSplit) {
  EXPECT_THAT(SplitOnWhitespace("  a \u2028b\u0085c\x1f" "d\u200be  "), ElementsAre("a", "b", "c", "d\u200be"));
  EXPECT_THAT(SplitOnWhitespace(""), ElementsAre());
  EXPECT_THAT(SplitOnWhitespace(" \t\n"), ElementsAre());
}

TEST(TrimTrailingWhitespaceTest, CutsOnlyTheEnd) {
  EXPECT_EQ(" a b", TrimTrailingWhitespace(" a b \u3000\n"));
  EXPECT_EQ("a\x85", TrimTrailingWhitespace("a\x85"));  // not NEL: one byte, not UTF-8
  EXPECT_EQ("", TrimTrailingWhitespace(" \u00a0"));
}

}  // namespace
}  // namespace ergobench
