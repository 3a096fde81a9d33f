#include "base/text_scan.h"

#include <gtest/gtest.h>

#include <string>

namespace ergobench {
namespace {

TEST(TextScanTest, EachMethodConsumesWhatItNamesOrNothing) {
  TextScan scan("-12.5e+3kB");
  EXPECT_FALSE(scan.Char('+'));
  EXPECT_TRUE(scan.Sign());
  EXPECT_TRUE(scan.Decimal());
  EXPECT_EQ(scan.rest(), "e+3kB");
  EXPECT_TRUE(scan.Exponent());
  EXPECT_FALSE(scan.Literal("kb"));
  EXPECT_TRUE(scan.Literal("k"));
  EXPECT_FALSE(scan.One(IsAsciiLower));
  EXPECT_TRUE(scan.One(IsAsciiUpper));
  EXPECT_TRUE(scan.AtEnd());
}

TEST(TextScanTest, ADecimalNeedsADigitAndAnExponentItsDigits) {
  for (const char* text : {"", ".", "+", "e"}) {
    TextScan scan(text);
    EXPECT_FALSE(scan.Decimal()) << text;
    EXPECT_EQ(scan.rest(), text) << "nothing consumed";
  }
  for (const char* text : {"7", "7.", ".5", "7.25"}) {
    TextScan scan(text);
    EXPECT_TRUE(scan.Decimal() && scan.AtEnd()) << text;
  }
  for (const char* text : {"e", "e+", "E-", "ex"}) {
    TextScan scan(text);
    EXPECT_FALSE(scan.Exponent()) << text;
    EXPECT_EQ(scan.rest(), text) << "nothing consumed";
  }
}

TEST(TextScanTest, DnsLabels) {
  for (const char* good : {"a", "0", "a-b", "a--b", "abc-123", "9lives"}) EXPECT_TRUE(IsDnsLabel(good)) << good;
  for (const char* bad : {"", "-a", "a-", "A", "a_b", "a.b", "a b", "é"}) EXPECT_FALSE(IsDnsLabel(bad)) << bad;
}

TEST(TextScanTest, DnsSubdomains) {
  for (const char* good : {"a", "a.b", "team.results-1", "0.0"}) EXPECT_TRUE(IsDnsSubdomain(good)) << good;
  for (const char* bad : {"", ".", "a.", ".a", "a..b", "../x", "a/b", "A.b", "a.-b"}) {
    EXPECT_FALSE(IsDnsSubdomain(bad)) << bad;
  }
  EXPECT_TRUE(IsDnsSubdomain(std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
                             std::string(61, 'd')));
  EXPECT_FALSE(IsDnsSubdomain(std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
                              std::string(62, 'd')));
}

TEST(TextScanTest, AllOfCountsWhenAskedTo) {
  EXPECT_TRUE(AllOf("00ff", IsLowerHexDigit, 4));
  EXPECT_FALSE(AllOf("00ff", IsLowerHexDigit, 5));
  EXPECT_FALSE(AllOf("00fF", IsLowerHexDigit));
  EXPECT_TRUE(AllOf("00fF", IsHexDigit));
  EXPECT_TRUE(AllOf("", IsAsciiDigit));
}

// What std::regex could not: a million characters, in constant stack.
TEST(TextScanTest, AMillionCharactersTakeNoStack) {
  const std::string label(1000000, 'a');
  EXPECT_TRUE(IsDnsLabel(label));
  const std::string number = std::string(1000000, '7') + "." + std::string(1000000, '1');
  TextScan scan(number);  // a view: the text must outlive it
  EXPECT_TRUE(scan.Decimal() && scan.AtEnd());
}

}  // namespace
}  // namespace ergobench
