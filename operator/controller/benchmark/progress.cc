#include "operator/controller/benchmark/progress.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "api/analysis/progress_estimate.h"
#include "api/analysis/training_phases.h"

namespace ergobench::controller {

namespace {

// Calls `sample(labels, value)` for each sample of `name` whose value is a finite number, in
// order, until it returns false; `labels` is what the braces hold ("" without them).
template <typename OnSample>
void ForEachSample(std::string_view exposition, std::string_view name, OnSample&& sample) {
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
    std::string_view labels;
    if (next == '{') {
      value_at = line.find("} ", value_at);
      if (value_at == std::string_view::npos) continue;
      labels = line.substr(name.size() + 1, value_at - name.size() - 1);
      value_at += 1;
    }
    const std::string value(line.substr(value_at + 1));
    char* parse_end = nullptr;
    const double number = std::strtod(value.c_str(), &parse_end);
    if (parse_end != value.c_str() && std::isfinite(number) && !sample(labels, number)) return;
  }
}

}  // namespace

std::optional<double> FindSample(std::string_view exposition, std::string_view name) {
  std::optional<double> found;
  ForEachSample(exposition, name, [&found](std::string_view, double value) {
    found = value;
    return false;
  });
  return found;
}

namespace {

// The value of label `name` in a sample's labels (`name="value"`), if it has one.
std::optional<std::string_view> LabelValue(std::string_view labels, std::string_view name) {
  for (size_t at = labels.find(name); at != std::string_view::npos; at = labels.find(name, at + 1)) {
    const bool starts = at == 0 || labels[at - 1] == ',';
    const size_t value_start = at + name.size() + 2;
    if (!starts || labels.substr(at + name.size(), 2) != "=\"") continue;
    const size_t value_end = labels.find('"', value_start);
    if (value_end == std::string_view::npos) return std::nullopt;
    return labels.substr(value_start, value_end - value_start);
  }
  return std::nullopt;
}

// A count as an integer, if it is one a run can reach: converting a double beyond int64's
// range is undefined, and a pod may serve any number.
std::optional<int64_t> AsCount(std::optional<double> value) {
  constexpr double kMax = 0x1p53;  // exact in a double, and far beyond any run
  if (!value || !(*value >= 0 && *value <= kMax)) return std::nullopt;
  return static_cast<int64_t>(*value);
}

// Rank 0's estimate (ergobench_progress_*, api/analysis/progress_estimate.h) into `progress`.
void ParseEstimate(std::string_view exposition, Progress* progress) {
  if (const std::optional<double> ratio = FindSample(exposition, "ergobench_progress_ratio"); ratio && *ratio >= 0 && *ratio <= 1) {
    progress->percent = 100 * *ratio;
  }
  ForEachSample(exposition, "ergobench_progress_remaining_seconds", [progress](std::string_view labels, double remaining) {
    const std::optional<std::string_view> basis = LabelValue(labels, "basis");
    const std::optional<int64_t> whole = AsCount(std::round(remaining));
    if (!basis || (*basis != kEstimatedFromWork && *basis != kEstimatedFromGoal) || !whole) return true;
    progress->seconds_left = whole;
    progress->estimated_from = std::string(*basis);
    return false;
  });
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
                       : goal_metric == "bleu"   ? "ergobench_eval_bleu"
                       : goal_metric == "mae"    ? "ergobench_eval_mean_absolute_error"
                                                 : nullptr;
  if (sample != nullptr) {
    progress.metric = goal_metric;
    const auto value = FindSample(exposition, sample);
    if (value && *value > 0) progress.value = *value;
  }
  ParseEstimate(exposition, &progress);
  return progress;
}

namespace {

// The training phase a sample's labels name (phase="..."), if any.
std::optional<TrainingPhase> PhaseLabel(std::string_view labels) {
  const std::optional<std::string_view> name = LabelValue(labels, "phase");
  if (!name) return std::nullopt;
  return ParsePhaseName(std::string(*name));
}

std::optional<StepTimeTotals> ParseStepTimeTotals(std::string_view exposition) {
  std::optional<StepTimeTotals> totals;
  ForEachSample(exposition, "ergobench_phase_seconds_total", [&totals](std::string_view labels, double total) {
    const std::optional<TrainingPhase> phase = PhaseLabel(labels);
    if (!phase || !InStepTime(*phase) || total < 0) return true;
    if (!totals) totals.emplace();
    totals->step_seconds += total;
    if (*phase == TrainingPhase::kCommunication) totals->communication_seconds += total;
    return true;
  });
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
