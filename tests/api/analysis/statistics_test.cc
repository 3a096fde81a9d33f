#include "api/analysis/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ergobench {
namespace {

// Student's t quantiles that have a closed form (p = 0.975): with 2 degrees of freedom
// (2p - 1) / sqrt(2p(1 - p)); with 4, 2 sqrt(cos(acos(sqrt(a)) / 3) / sqrt(a) - 1), a = 4p(1 - p).
double T975With2Degrees() { return 0.95 / std::sqrt(2 * 0.975 * 0.025); }
double T975With4Degrees() {
  const double a = 4 * 0.975 * 0.025;
  return 2 * std::sqrt(std::cos(std::acos(std::sqrt(a)) / 3) / std::sqrt(a) - 1);
}

// Worked out by hand: 1..5 has mean 3, sample standard deviation sqrt(2.5), and t(4) = 2.7764...
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
  EXPECT_NEAR(*s->ci95_low, 3 - T975With4Degrees() * std::sqrt(2.5) / std::sqrt(5.0), 1e-12);
  EXPECT_NEAR(*s->ci95_high, 4.963, 1e-3);
}

TEST(Statistics, OlympicMeanDropsTheBestAndTheWorst) {
  const StatusOr<Summary> s = Summarize({100, 10, 11, 12, 0});
  EXPECT_DOUBLE_EQ(*s->olympic_mean, 11);
  EXPECT_DOUBLE_EQ(s->median, 11);
  EXPECT_DOUBLE_EQ(s->mean, 26.6);
}

TEST(Statistics, ThreeRepeatsHaveAWideInterval) {
  // Mean 11, standard deviation 1, t(2) = 4.3026...: 11 ± t(2) / sqrt(3).
  const StatusOr<Summary> s = Summarize({10, 12, 11});
  EXPECT_NEAR(*s->ci95_low, 11 - T975With2Degrees() / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(*s->ci95_high, 11 + T975With2Degrees() / std::sqrt(3.0), 1e-12);
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

// Published quantiles (R's qt(0.975, df), to 10 significant figures), past the 30 degrees of
// freedom a printed table stops at too: there the normal's 1.960 made intervals 2-4% narrow.
TEST(Statistics, StudentsQuantiles) {
  const std::pair<double, double> known[] = {
      {1, 12.70620474},  {2, T975With2Degrees()}, {4, T975With4Degrees()}, {10, 2.228138852}, {30, 2.042272456},
      {31, 2.039513446}, {45, 2.014103389},       {60, 2.000297822},       {1000, 1.962339081}};
  for (const auto& [degrees, quantile] : known) EXPECT_NEAR(StudentT975(degrees), quantile, 1e-8) << degrees;
  // Welch-Satterthwaite's degrees of freedom are not whole: between its neighbours' quantiles.
  EXPECT_LT(StudentT975(7.5), StudentT975(7));
  EXPECT_GT(StudentT975(7.5), StudentT975(8));
  EXPECT_TRUE(std::isnan(StudentT975(0)));
  EXPECT_TRUE(std::isnan(StudentT975(-1)));
  EXPECT_TRUE(std::isnan(StudentT975(std::nan(""))));
}

}  // namespace
}  // namespace ergobench
