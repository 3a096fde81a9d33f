#include "api/analysis/statistics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string>

namespace ergobench {

double StudentT975(int64_t degrees) {
  // Tabulated to 30 degrees of freedom; beyond, the normal quantile is within 2%.
  static constexpr std::array<double, 30> kTable = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
      2.120,  2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (degrees < 1) return std::nan("");
  return degrees <= 30 ? kTable[static_cast<size_t>(degrees - 1)] : 1.960;
}

StatusOr<Summary> Summarize(std::vector<double> values) {
  if (values.empty()) return Status::InvalidArgument("no values to summarize");
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      return Status::InvalidArgument("value " + std::to_string(i) + " is not a finite number");
    }
  }
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  Summary s;
  s.n = static_cast<int64_t>(n);
  s.min = values.front();
  s.max = values.back();
  s.median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(n);
  if (n >= 3) {
    s.olympic_mean = std::accumulate(values.begin() + 1, values.end() - 1, 0.0) / static_cast<double>(n - 2);
  }
  if (n >= 2) {
    double squares = 0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(n - 1));
    const double half = StudentT975(static_cast<int64_t>(n) - 1) * *s.stddev / std::sqrt(static_cast<double>(n));
    s.ci95_low = s.mean - half;
    s.ci95_high = s.mean + half;
  }
  return s;
}

}  // namespace ergobench
