#include "operator/controller/benchmark/progress.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "api/analysis/training_phases.h"

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

namespace {

// The phase="..." label of a sample line, and its value; nothing for a line that is not one.
std::optional<std::pair<TrainingPhase, double>> PhaseSample(std::string_view line) {
  static constexpr std::string_view kName = "ergobench_phase_seconds_total{";
  static constexpr std::string_view kLabel = "phase=\"";
  if (line.substr(0, kName.size()) != kName) return std::nullopt;
  const size_t labels_end = line.find("} ");
  const size_t label = line.find(kLabel);
  if (labels_end == std::string_view::npos || label == std::string_view::npos || label > labels_end) return std::nullopt;
  const size_t name_start = label + kLabel.size();
  const size_t name_end = line.find('"', name_start);
  if (name_end == std::string_view::npos || name_end > labels_end) return std::nullopt;
  const auto phase = ParsePhaseName(std::string(line.substr(name_start, name_end - name_start)));
  const std::string value(line.substr(labels_end + 2));
  char* parse_end = nullptr;
  const double total = std::strtod(value.c_str(), &parse_end);
  if (!phase || parse_end == value.c_str() || !std::isfinite(total) || total < 0) return std::nullopt;
  return std::pair(*phase, total);
}

std::optional<StepTimeTotals> ParseStepTimeTotals(std::string_view exposition) {
  std::optional<StepTimeTotals> totals;
  size_t start = 0;
  while (start < exposition.size()) {
    size_t end = exposition.find('\n', start);
    if (end == std::string_view::npos) end = exposition.size();
    const auto sample = PhaseSample(exposition.substr(start, end - start));
    start = end + 1;
    if (!sample || !InStepTime(sample->first)) continue;
    if (!totals) totals.emplace();
    totals->step_seconds += sample->second;
    if (sample->first == TrainingPhase::kCommunication) totals->communication_seconds += sample->second;
  }
  return totals;
}

}  // namespace

std::optional<double> RecentCommunicationRatio(const StepTimeTotals& before, const StepTimeTotals& after) {
  const double step = after.step_seconds - before.step_seconds;
  const double communication = after.communication_seconds - before.communication_seconds;
  if (!(step > 0) || communication < 0 || communication > step) return std::nullopt;
  return communication / step;
}

RankZeroState ParseRankZeroState(std::string_view exposition, const std::string& goal_metric) {
  return {ParseProgress(exposition, goal_metric), FindSample(exposition, kArtifactsOfferedMetric).value_or(0) == 1,
          ParseStepTimeTotals(exposition)};
}

}  // namespace ergobench::controller
