// A figure over repeated measurements as results carry it: analysis/statistics.h computes it.
#pragma once

#include <cstdint>
#include <optional>

namespace ergobench {

struct Summary {
  int64_t n = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  std::optional<double> stddev;        // the sample standard deviation; from 2 values
  std::optional<double> olympic_mean;  // from 3 values
  std::optional<double> ci95_low;      // the mean's 95% interval; from 2 values
  std::optional<double> ci95_high;
};

}  // namespace ergobench
