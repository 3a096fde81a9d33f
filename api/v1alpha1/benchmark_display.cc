#include "api/v1alpha1/benchmark_display.h"

#include <vector>

#include "api/v1alpha1/benchmark_phase.h"
#include "api/v1alpha1/headline_figures.h"
#include "base/units.h"

namespace ergobench {
namespace {

std::string Join(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : " · ") + part;
  return text;
}

std::string EpochOf(int64_t epoch, std::optional<int64_t> max_epochs) {
  return "epoch " + std::to_string(epoch) + (max_epochs ? "/" + std::to_string(*max_epochs) : "");
}

// The time left as the runner estimated it: an upper bound when it extrapolates the work and a
// goal may end the run sooner, "to goal" when it follows the goal metric's trend.
std::string TimeLeft(const Progress& p) {
  if (!p.seconds_left) return "";
  const std::string time = FormatSeconds(static_cast<double>(*p.seconds_left));
  if (p.estimated_from == kEstimatedFromGoal) return "~" + time + " to goal";
  return (p.goal ? "≤" : "") + time + " left";
}

std::string HeadlineThroughput(const BenchmarkResults& results) {
  if (std::optional<double> v = FindHeadlineFigure("peakBusBandwidthBytesPerSecond")->get(results)) {
    return FormatBytesPerSecond(*v);
  }
  if (std::optional<double> v = FindHeadlineFigure("tokensPerSecond")->get(results)) return FormatSi(*v, "tokens/s");
  if (std::optional<double> v = FindHeadlineFigure("samplesPerSecond")->get(results)) return FormatSi(*v, "samples/s");
  return "";
}

}  // namespace

std::string DisplayProgress(const Benchmark& b) {
  const BenchmarkStatus& s = b.status;
  std::vector<std::string> parts;
  if (b.spec.repeats > 1 && s.phase == kPhaseRunning) {
    parts.push_back("repeat " + std::to_string(s.repeats.size() + 1) + "/" + std::to_string(b.spec.repeats));
  }
  if (s.phase == kPhaseSucceeded) {
    parts.push_back("done");
    const Figures* figures = s.results ? &s.results->figures : nullptr;
    if (figures && figures->epochs) parts.push_back(EpochOf(*figures->epochs, b.spec.max_epochs));
    if (figures && figures->goal_reached.value_or(false)) parts.push_back("goal reached");
    return Join(parts);
  }
  if (!s.progress) {
    if (s.phase == kPhaseRunning) parts.push_back("starting");
    return Join(parts);
  }
  const Progress& p = *s.progress;
  if (p.percent) parts.push_back(FormatSi(*p.percent, "") + "%");
  if (p.epoch) parts.push_back(EpochOf(*p.epoch, p.max_epochs));
  if (p.value && !p.metric.empty()) {
    parts.push_back(p.metric + " " + FormatSi(*p.value, "") + (p.goal ? "→" + FormatSi(*p.goal, "") : ""));
  }
  if (s.phase == kPhaseRunning && p.seconds_left) parts.push_back(TimeLeft(p));
  return Join(parts);
}

BenchmarkDisplay DisplayOf(const Benchmark& b) {
  BenchmarkDisplay display;
  display.progress = DisplayProgress(b);
  if (!b.status.results) return display;
  const BenchmarkResults& r = *b.status.results;
  display.throughput = HeadlineThroughput(r);
  if (r.figures.goal_reached.value_or(false) && r.figures.time_to_accuracy_seconds) {
    display.time_to_accuracy = FormatSeconds(*r.figures.time_to_accuracy_seconds);
  }
  if (r.figures.energy_joules) display.energy = FormatSi(*r.figures.energy_joules, "J", true);
  if (r.cost_usd) display.cost = FormatSi(*r.cost_usd, r.currency.empty() ? "USD" : r.currency);
  return display;
}

}  // namespace ergobench
