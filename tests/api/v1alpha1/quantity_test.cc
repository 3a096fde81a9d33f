#include "api/v1alpha1/quantity.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

TEST(QuantityTest, ParsesKubernetesForms) {
  EXPECT_DOUBLE_EQ(*ParseQuantity("3"), 3.0);
  EXPECT_DOUBLE_EQ(*ParseQuantity("500m"), 0.5);
  EXPECT_DOUBLE_EQ(*ParseQuantity("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(*ParseQuantity("8Gi"), 8.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*ParseQuantity("128Mi"), 128.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*ParseQuantity("2k"), 2000.0);
  EXPECT_DOUBLE_EQ(*ParseQuantity("1e3"), 1000.0);
  EXPECT_DOUBLE_EQ(*ParseQuantity("5E-1"), 0.5);
}

// The Dataset's Size column: 3 significant figures in binary units, read back by ParseQuantity.
TEST(QuantityTest, ByteCountsAsBinaryQuantities) {
  EXPECT_EQ(FormatByteQuantity(54945648), "52.4Mi");  // Fashion-MNIST's four files, gunzipped
  EXPECT_EQ(FormatByteQuantity(512), "512");
  EXPECT_EQ(FormatByteQuantity(1023), "1023");
  EXPECT_EQ(FormatByteQuantity(1024), "1Ki");
  EXPECT_EQ(FormatByteQuantity(1536), "1.5Ki");
  EXPECT_EQ(FormatByteQuantity(170498071), "163Mi");  // CIFAR-10's python archive
  EXPECT_EQ(FormatByteQuantity(int64_t{5} << 40), "5Ti");
  EXPECT_EQ(FormatByteQuantity(0), "0");
  for (int64_t bytes : {int64_t{54945648}, int64_t{170498071}, int64_t{1536}}) {
    const double back = *ParseQuantity(FormatByteQuantity(bytes));
    EXPECT_NEAR(back, static_cast<double>(bytes), 0.005 * static_cast<double>(bytes)) << bytes;
  }
}

TEST(QuantityTest, RejectsOtherText) {
  for (const char* bad : {"", "three", "8GB", "1.2.3", "Gi", "-", "8 Gi"}) {
    auto q = ParseQuantity(bad);
    EXPECT_FALSE(q.ok()) << bad;
  }
}

// "1e999" was read as infinity and accepted as a CPU count; a longer exponent overflowed atoi.
TEST(QuantityTest, OutOfRangeIsAnErrorNotInfinity) {
  for (const std::string& huge : {std::string("1e999"), std::string("1e99999999999999999999"), std::string(60, '9') + "e999",
                                  std::string("1E400")}) {
    auto q = ParseQuantity(huge);
    ASSERT_FALSE(q.ok()) << huge << " gave " << *q;
    EXPECT_NE(q.status().message().find("out of range"), std::string::npos) << q.status().message();
  }
  EXPECT_DOUBLE_EQ(*ParseQuantity("1e-999"), 0.0);
  EXPECT_DOUBLE_EQ(*ParseQuantity("2e18"), 2e18);
}

// The audit's crash: std::regex recursed once per character, and 100,000 digits in
// resources.cpu overflowed the stack of `ergobench validate` and the operator alike. Text over
// the limit is refused before it is parsed, quoted shortened.
TEST(QuantityTest, TextLongerThanTheLimitIsRefusedUnparsed) {
  auto q = ParseQuantity(std::string(100000, '1'));
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().message(), "\"" + std::string(61, '1') + "...\" is not a quantity: longer than 64 characters");
  const std::string longest = "1." + std::string(kMaxQuantityLength - 4, '5') + "Ki";
  ASSERT_EQ(longest.size(), kMaxQuantityLength);
  EXPECT_DOUBLE_EQ(*ParseQuantity(longest), 1.5555555555555556 * 1024);
}

TEST(QuantityTest, EverySuffixAndNoOther) {
  EXPECT_DOUBLE_EQ(*ParseQuantity("1E"), 1e18);
  EXPECT_DOUBLE_EQ(*ParseQuantity("1Ei"), 0x1p60);
  EXPECT_DOUBLE_EQ(*ParseQuantity("-.5"), -0.5);
  EXPECT_DOUBLE_EQ(*ParseQuantity("+2."), 2.0);
  EXPECT_DOUBLE_EQ(*ParseQuantity("3e+2"), 300.0);
  for (const char* bad : {"1e", "1e+", "1Kb", "1ki", "1mm", ".", "+", "1 ", " 1", "1e3m", "0x10"}) {
    EXPECT_FALSE(ParseQuantity(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace ergobench
