#include "api/repeats.h"

#include <algorithm>

namespace ergobench {
namespace {

constexpr int64_t kSeedLimit = 2147483648;  // the seed hyperparameter's range is 0 .. 2^31-1

// A figure of Figures (in results.figures), read and written through one member.
HeadlineFigure FigureOf(std::string name, bool higher_is_better, double band, std::optional<double> Figures::*member) {
  return {std::move(name), higher_is_better, band,
          [member](const BenchmarkResults& r) { return r.figures.*member; },
          [member](BenchmarkResults* r, double v) { r->figures.*member = v; }};
}

std::vector<HeadlineFigure> MakeHeadlineFigures() {
  std::vector<HeadlineFigure> figures = {
      FigureOf("samplesPerSecond", true, 5, &Figures::samples_per_second),
      {"tokensPerSecond", true, 5,
       [](const BenchmarkResults& r) {
         return r.figures.language_model ? std::optional(r.figures.language_model->tokens_per_second) : std::nullopt;
       },
       [](BenchmarkResults* r, double v) {
         if (r->figures.language_model) r->figures.language_model->tokens_per_second = v;
       }},
      {"peakBusBandwidthBytesPerSecond", true, 5,
       [](const BenchmarkResults& r) {
         return r.figures.allreduce ? std::optional(r.figures.allreduce->peak_bus_bandwidth_bytes_per_second)
                                    : std::nullopt;
       },
       [](BenchmarkResults* r, double v) {
         if (r->figures.allreduce) r->figures.allreduce->peak_bus_bandwidth_bytes_per_second = v;
       }},
      FigureOf("timeToAccuracySeconds", false, 10, &Figures::time_to_accuracy_seconds),
      {"runSeconds", false, 10,
       [](const BenchmarkResults& r) {  // 0: the run never reached run_start
         return r.figures.run_seconds > 0 ? std::optional(r.figures.run_seconds) : std::nullopt;
       },
       [](BenchmarkResults* r, double v) { r->figures.run_seconds = v; }},
      FigureOf("energyJoules", false, 10, &Figures::energy_joules),
      {"energyToAccuracyJoules", false, 10,
       [](const BenchmarkResults& r) { return r.figures.energy_to_accuracy_joules; },
       [](BenchmarkResults* r, double v) {
         r->figures.energy_to_accuracy_joules = v;
         r->energy_to_accuracy_wh = v / 3600;  // kept consistent with the figure it restates
       }},
      FigureOf("communicationRatio", false, 5, &Figures::communication_ratio),
  };
  figures.back().band_in_points = true;
  return figures;
}

}  // namespace

const std::vector<HeadlineFigure>& HeadlineFigures() {
  static const std::vector<HeadlineFigure> figures = MakeHeadlineFigures();
  return figures;
}

const HeadlineFigure* FindHeadlineFigure(const std::string& name) {
  for (const HeadlineFigure& f : HeadlineFigures()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

int64_t RepeatSeed(int64_t seed, int64_t repeat) { return (seed + repeat) % kSeedLimit; }

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
  if (repeat != 0 && seed) spec->hyperparameters["seed"] = RepeatSeed(*seed, repeat);
}

RepeatResult RepeatOf(int64_t repeat, const BenchmarkSpec& spec, const BenchmarkResults& results) {
  const std::optional<int64_t> seed = RecipeSeed(spec);
  RepeatResult out;
  out.repeat = repeat;
  out.seed = seed ? RepeatSeed(*seed, repeat) : 0;
  for (const HeadlineFigure& figure : HeadlineFigures()) {
    if (const std::optional<double> value = figure.get(results)) out.figures[figure.name] = *value;
  }
  return out;
}

BenchmarkResults FoldRepeats(BenchmarkResults last, std::vector<RepeatResult> repeats) {
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
  last.repeats = std::move(repeats);
  return last;
}

}  // namespace ergobench
