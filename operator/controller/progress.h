// Progress of a running Benchmark, read from rank 0's Prometheus metrics: the epoch, the
// steps taken (the step-duration histogram's count) and the last evaluation's value.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/benchmark.h"

namespace ergobench::controller {

// The first sample of `name` in a Prometheus text exposition, whatever its labels.
std::optional<double> FindSample(std::string_view exposition, std::string_view name);

// Nothing when the exposition has no epoch yet (the rank is still initialising).
std::optional<Progress> ParseProgress(std::string_view exposition, const std::string& goal_metric);

// Where progress comes from: rank 0's /metrics over HTTP, or a script in tests.
class ProgressReader {
 public:
  virtual ~ProgressReader() = default;
  virtual std::optional<Progress> Read(const std::string& pod_ip, int port, const std::string& goal_metric) = 0;
};

}  // namespace ergobench::controller
