#include "api/analysis/scaling.h"

namespace ergobench {
namespace {

std::optional<double> Ratio(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *b == 0) return std::nullopt;
  return *a / *b;
}

std::optional<double> TimeToAccuracy(const Figures& f) {
  return f.goal_reached.value_or(false) ? f.time_to_accuracy_seconds : std::nullopt;
}

}  // namespace

std::optional<double> Speedup(const Figures& run, const Figures& base) {
  if (TimeToAccuracy(run) && TimeToAccuracy(base)) return Ratio(TimeToAccuracy(base), TimeToAccuracy(run));
  return Ratio(run.samples_per_second, base.samples_per_second);
}

double ScalingEfficiency(double speedup, int64_t workers, int64_t base_workers) {
  return speedup / (static_cast<double>(workers) / static_cast<double>(base_workers));
}

}  // namespace ergobench
