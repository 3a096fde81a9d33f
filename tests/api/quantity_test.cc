#include "api/quantity.h"

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

TEST(QuantityTest, RejectsOtherText) {
  for (const char* bad : {"", "three", "8GB", "1.2.3", "Gi", "-", "8 Gi"}) {
    auto q = ParseQuantity(bad);
    EXPECT_FALSE(q.ok()) << bad;
  }
}

// "1e999" was read as infinity and accepted as a CPU count; a longer exponent overflowed atoi.
TEST(QuantityTest, OutOfRangeIsAnErrorNotInfinity) {
  for (const std::string& huge : {std::string("1e999"), std::string("1e99999999999999999999"), std::string(400, '9'),
                                  std::string("1E400")}) {
    auto q = ParseQuantity(huge);
    ASSERT_FALSE(q.ok()) << huge << " gave " << *q;
    EXPECT_NE(q.status().message().find("out of range"), std::string::npos) << q.status().message();
  }
  EXPECT_DOUBLE_EQ(*ParseQuantity("1e-999"), 0.0);
  EXPECT_DOUBLE_EQ(*ParseQuantity("2e18"), 2e18);
}

}  // namespace
}  // namespace ergobench
