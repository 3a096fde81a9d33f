#include "operator/controller/benchmark/progress.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace ergobench::controller {

std::optional<double> FindSample(std::string_view exposition, std::string_view name) {
  size_t start = 0;
  while (start < exposition.size()) {
    size_t end = exposition.find('\n', start);
    if (end == std::string_view::npos) end = exposition.size();
    const std::string_view line = exposition.substr(start, end - start);
    start = end + 1;
    if (line.size() <= name.size() || line.substr(0, name.size()) != name) continue;
    const char next = line[name.size()];
    if (next != '{' && next != ' ') continue;
    size_t value_at = name.size();
    if (next == '{') {
      value_at = line.find("} ", value_at);
      if (value_at == std::string_view::npos) continue;
      value_at += 1;
    }
    const std::string value(line.substr(value_at + 1));
    char* parse_end = nullptr;
    const double number = std::strtod(value.c_str(), &parse_end);
    if (parse_end != value.c_str() && std::isfinite(number)) return number;
  }
  return std::nullopt;
}

namespace {

// A count as an integer, if it is one a run can reach: converting a double beyond int64's
// range is undefined, and a pod may serve any number.
std::optional<int64_t> AsCount(std::optional<double> value) {
  constexpr double kMax = 0x1p53;  // exact in a double, and far beyond any run
  if (!value || !(*value >= 0 && *value <= kMax)) return std::nullopt;
  return static_cast<int64_t>(*value);
}

}  // namespace

std::optional<Progress> ParseProgress(std::string_view exposition, const std::string& goal_metric) {
  const auto epoch = AsCount(FindSample(exposition, "ergobench_epoch"));
  if (!epoch) return std::nullopt;
  Progress progress;
  progress.epoch = *epoch;
  progress.step = AsCount(FindSample(exposition, "ergobench_step_duration_seconds_count"));
  // Zero until the first evaluation: better absent than a false 0 % or a loss of 0.
  const char* sample = goal_metric == "accuracy" ? "ergobench_eval_accuracy_ratio"
                       : goal_metric == "loss"   ? "ergobench_eval_loss"
                                                 : nullptr;
  if (sample != nullptr) {
    progress.metric = goal_metric;
    const auto value = FindSample(exposition, sample);
    if (value && *value > 0) progress.value = *value;
  }
  return progress;
}

RankZeroState ParseRankZeroState(std::string_view exposition, const std::string& goal_metric) {
  return {ParseProgress(exposition, goal_metric), FindSample(exposition, kArtifactsOfferedMetric).value_or(0) == 1};
}

}  // namespace ergobench::controller
