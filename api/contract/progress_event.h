// ProgressEvent: what a rank tells `ergobench run` while it works, one JSON line each,
// appended to its progress file. The operator gets the same figures from /metrics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"

namespace ergobench {

struct ProgressEvent {
  int64_t rank = 0;
  std::string stage;  // "init" | "run" | "done"
  int64_t done = 0;   // units of work finished (sizes, steps)
  int64_t total = 0;
  std::optional<int64_t> epoch;
  std::optional<double> loss;
  std::string metric;  // "accuracy"
  std::optional<double> value;
  std::string note;  // "4.0 MiB: busbw 1.20 GB/s"
  // The runner's estimate (api/analysis/progress_estimate.h): the share of the most work done,
  // the time left and what that extrapolates ("work" or "goal").
  std::optional<double> done_fraction;
  std::optional<double> seconds_left;
  std::string estimated_from;
  double elapsed_seconds = 0;
};

std::string EncodeProgressEvent(const ProgressEvent& event);  // one line, no newline
StatusOr<ProgressEvent> ParseProgressEvent(const std::string& line);

}  // namespace ergobench
