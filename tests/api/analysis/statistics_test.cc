#include "api/analysis/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ergobench {
namespace {

// Worked out by hand: 1..5 has mean 3, sample standard deviation sqrt(2.5), and t(4) = 2.776.
TEST(Statistics, FiveValues) {
  const StatusOr<Summary> s = Summarize({5, 1, 4, 2, 3});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->n, 5);
  EXPECT_DOUBLE_EQ(s->median, 3);
  EXPECT_DOUBLE_EQ(s->min, 1);
  EXPECT_DOUBLE_EQ(s->max, 5);
  EXPECT_DOUBLE_EQ(s->mean, 3);
  EXPECT_DOUBLE_EQ(*s->olympic_mean, 3);  // (2 + 3 + 4) / 3
  EXPECT_DOUBLE_EQ(*s->stddev, std::sqrt(2.5));
  EXPECT_NEAR(*s->ci95_low, 3 - 2.776 * std::sqrt(2.5) / std::sqrt(5.0), 1e-12);
  EXPECT_NEAR(*s->ci95_high, 4.963, 1e-3);
}

TEST(Statistics, OlympicMeanDropsTheBestAndTheWorst) {
  const StatusOr<Summary> s = Summarize({100, 10, 11, 12, 0});
  EXPECT_DOUBLE_EQ(*s->olympic_mean, 11);
  EXPECT_DOUBLE_EQ(s->median, 11);
  EXPECT_DOUBLE_EQ(s->mean, 26.6);
}

TEST(Statistics, ThreeRepeatsHaveAWideInterval) {
  // Mean 11, standard deviation 1, t(2) = 4.303: 11 ± 4.303 / sqrt(3).
  const StatusOr<Summary> s = Summarize({10, 12, 11});
  EXPECT_NEAR(*s->ci95_low, 11 - 4.303 / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(*s->ci95_high, 11 + 4.303 / std::sqrt(3.0), 1e-12);
}

TEST(Statistics, OneValueHasNoSpreadAndAnEvenCountAMiddleMedian) {
  const StatusOr<Summary> one = Summarize({7});
  EXPECT_DOUBLE_EQ(one->median, 7);
  EXPECT_FALSE(one->stddev.has_value());
  EXPECT_FALSE(one->ci95_low.has_value());
  EXPECT_FALSE(one->olympic_mean.has_value());
  EXPECT_DOUBLE_EQ(Summarize({4, 1, 3, 2})->median, 2.5);
}

TEST(Statistics, BadInputIsNamed) {
  EXPECT_EQ(Summarize({}).status().message(), "no values to summarize");
  EXPECT_EQ(Summarize({1, std::numeric_limits<double>::quiet_NaN()}).status().message(),
            "value 1 is not a finite number");
}

TEST(Statistics, StudentsQuantiles) {
  EXPECT_DOUBLE_EQ(StudentT975(1), 12.706);
  EXPECT_DOUBLE_EQ(StudentT975(10), 2.228);
  EXPECT_DOUBLE_EQ(StudentT975(30), 2.042);
  EXPECT_DOUBLE_EQ(StudentT975(1000), 1.960);
  EXPECT_TRUE(std::isnan(StudentT975(0)));
}

}  // namespace
}  // namespace ergobench
