#include "api/analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include <boost/math/distributions/students_t.hpp>

namespace ergobench {

double StudentT975(double degrees) {
  if (!(degrees > 0)) return std::nan("");  // NaN too
  return boost::math::quantile(boost::math::students_t_distribution<double>(degrees), 0.975);
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
    const double half = StudentT975(static_cast<double>(n - 1)) * *s.stddev / std::sqrt(static_cast<double>(n));
    s.ci95_low = s.mean - half;
    s.ci95_high = s.mean + half;
  }
  return s;
}

}  // namespace ergobench
