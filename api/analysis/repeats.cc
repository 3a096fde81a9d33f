#include "api/analysis/repeats.h"

#include <algorithm>

#include "api/analysis/mlperf_score.h"
#include "api/analysis/statistics.h"
#include "api/v1alpha1/defaults.h"

namespace ergobench {
namespace {

// The recipe's seed; none for a task without one (0a).
std::optional<int64_t> RecipeSeed(const BenchmarkSpec& spec) {
  const nlohmann::json& h = spec.hyperparameters;
  if (!h.is_object() || !h.contains("seed")) return std::nullopt;
  return h["seed"].is_number_integer() ? h["seed"].get<int64_t>() : 0;
}

}  // namespace

void ApplyRepeatSeed(BenchmarkSpec* spec, int64_t repeat) {
  const std::optional<int64_t> seed = RecipeSeed(*spec);
  if (repeat != 0 && seed) spec->hyperparameters["seed"] = DerivedSeed(*seed, repeat);
}

RepeatResult RepeatOf(int64_t repeat, const BenchmarkSpec& spec, const BenchmarkResults& results) {
  const std::optional<int64_t> seed = RecipeSeed(spec);
  RepeatResult out;
  out.repeat = repeat;
  out.seed = seed ? DerivedSeed(*seed, repeat) : 0;
  for (const HeadlineFigure& figure : HeadlineFigures()) {
    if (const std::optional<double> value = figure.get(results)) out.figures[figure.name] = *value;
  }
  out.goal_reached = results.figures.goal_reached;
  out.samples = results.figures.samples;
  out.epochs = results.figures.epochs;
  return out;
}

BenchmarkResults FoldRepeats(const BenchmarkSpec& spec, BenchmarkResults last, std::vector<RepeatResult> repeats) {
  if (repeats.size() < 2) return last;
  std::sort(repeats.begin(), repeats.end(), [](const auto& a, const auto& b) { return a.repeat < b.repeat; });
  for (const HeadlineFigure& figure : HeadlineFigures()) {
    std::vector<double> values;
    for (const RepeatResult& r : repeats) {
      if (const auto it = r.figures.find(figure.name); it != r.figures.end()) values.push_back(it->second);
    }
    StatusOr<Summary> summary = Summarize(values);
    if (!summary.ok()) continue;  // no repeat measured it
    last.summary[figure.name] = *summary;
    figure.set(&last, summary->median);
  }
  last.mlperf = ScoreRepeats(spec, repeats);
  last.repeats = std::move(repeats);
  return last;
}

}  // namespace ergobench
