#include "cli/report/training_curves.h"

#include <cmath>

#include <nlohmann/json.hpp>

namespace ergobench {
namespace {

constexpr std::string_view kPrefix = ":::MLLOG ";

bool IsCurveKey(const std::string& key) { return key == "eval_accuracy" || key == "eval_loss" || key == "train_loss"; }

std::optional<double> FiniteNumber(const nlohmann::json& value) {
  if (!value.is_number()) return std::nullopt;
  const double number = value.get<double>();
  return std::isfinite(number) ? std::optional(number) : std::nullopt;
}

// What a point is of: its epoch or its step, and the samples trained by then.
struct Place {
  std::string key;  // "epoch 3", "step 200"
  std::optional<double> samples;
};

std::optional<Place> PlaceOf(const nlohmann::json& metadata, std::optional<double> train_samples,
                             std::optional<double> global_batch) {
  if (!metadata.is_object()) return std::nullopt;
  for (const auto& [name, per_unit] : {std::pair{"epoch_num", train_samples}, std::pair{"step_num", global_batch}}) {
    const auto it = metadata.find(name);
    if (it == metadata.end() || !it->is_number_integer()) continue;
    const int64_t unit = it->get<int64_t>();
    Place place{std::string(name) + " " + std::to_string(unit), std::nullopt};
    const double samples = static_cast<double>(unit) * per_unit.value_or(0);
    if (per_unit && unit >= 0 && std::isfinite(samples)) place.samples = samples;
    return place;
  }
  return std::nullopt;
}

}  // namespace

TrainingCurve ParseTrainingCurve(std::string_view mllog) {
  TrainingCurve curve;
  std::optional<double> run_start_ms, train_samples, global_batch;
  std::string last_place;
  size_t start = 0;
  while (start < mllog.size() && curve.points.size() <= kMaxCurvePoints) {
    size_t end = mllog.find('\n', start);
    if (end == std::string_view::npos) end = mllog.size();
    const std::string_view line = mllog.substr(start, end - start);
    start = end + 1;
    if (line.substr(0, kPrefix.size()) != kPrefix) continue;
    const nlohmann::json event = nlohmann::json::parse(line.substr(kPrefix.size()), nullptr, false);
    if (!event.is_object() || !event.contains("key") || !event["key"].is_string()) continue;
    const std::string key = event["key"].get<std::string>();
    const std::optional<double> time_ms = FiniteNumber(event.value("time_ms", nlohmann::json()));
    const std::optional<double> value = FiniteNumber(event.value("value", nlohmann::json()));
    if (key == "run_start" && time_ms) run_start_ms = time_ms;
    if (key == "train_samples") train_samples = value;
    if (key == "global_batch_size") global_batch = value;
    if (!IsCurveKey(key) || !value || !time_ms || !run_start_ms) continue;
    const std::optional<Place> place = PlaceOf(event.value("metadata", nlohmann::json()), train_samples, global_batch);
    if (!place) continue;
    const double seconds = (*time_ms - *run_start_ms) / 1000;
    if (!std::isfinite(seconds)) continue;  // 1e308 ms apart: no time a run takes
    if (curve.points.empty() || place->key != last_place) {
      if (curve.points.size() == kMaxCurvePoints) break;
      curve.points.push_back(CurvePoint{seconds, place->samples, {}});
      last_place = place->key;
    }
    curve.points.back().values[key] = *value;
  }
  return curve;
}

}  // namespace ergobench
