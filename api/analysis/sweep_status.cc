#include "api/analysis/sweep_status.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "api/analysis/repeats.h"
#include "api/analysis/scaling.h"
#include "api/analysis/weak_scaling.h"
#include "api/contract/mlperf_benchmarks.h"
#include "api/v1alpha1/benchmark_phase.h"

namespace ergobench {
namespace {

// Each headline figure the point measured: its repeats' statistics, or its one value.
std::map<std::string, Summary> FiguresOf(const BenchmarkResults& results) {
  std::map<std::string, Summary> figures;
  for (const HeadlineFigure& figure : HeadlineFigures()) {
    if (const auto found = results.summary.find(figure.name); found != results.summary.end()) {
      figures[figure.name] = found->second;
    } else if (const std::optional<double> value = figure.get(results)) {
      if (StatusOr<Summary> one = Summarize({*value}); one.ok()) figures[figure.name] = *one;
    }
  }
  return figures;
}

std::string FailureMessage(const BenchmarkStatus& status) {
  for (const Condition& c : status.conditions) {
    if (c.type == kPhaseFailed && c.status == "True") return c.reason + ": " + c.message;
  }
  return "";
}

using SeriesKey = std::tuple<std::string, std::string, std::string>;
SeriesKey SeriesOf(const SweepParameters& p) { return {p.system, p.backend, p.hyperparameters.dump()}; }

// The figures Speedup compares, from a point's summaries: the medians, which are a repeated
// run's figures too (repeats.h), so that a point whose child is gone still counts.
Figures MedianFigures(const std::map<std::string, Summary>& summaries) {
  Figures f;
  if (const auto tta = summaries.find("timeToAccuracySeconds"); tta != summaries.end()) {
    f.goal_reached = true;  // a run has a time to accuracy only once it reached its goal
    f.time_to_accuracy_seconds = tta->second.median;
  }
  if (const auto sps = summaries.find("samplesPerSecond"); sps != summaries.end()) f.samples_per_second = sps->second.median;
  return f;
}

// Speedup and efficiency of each succeeded point over its series' succeeded point of fewest workers.
void CompareWithSeriesBaseline(std::vector<SweepPointStatus>* points) {
  std::map<SeriesKey, size_t> baselines;
  for (size_t i = 0; i < points->size(); ++i) {
    if ((*points)[i].phase != kPhaseSucceeded || (*points)[i].figures.empty()) continue;
    auto [found, added] = baselines.try_emplace(SeriesOf((*points)[i].parameters), i);
    if (!added && (*points)[i].parameters.workers < (*points)[found->second].parameters.workers) found->second = i;
  }
  for (SweepPointStatus& point : *points) {
    const auto base = baselines.find(SeriesOf(point.parameters));
    if (base == baselines.end() || point.phase != kPhaseSucceeded || point.figures.empty()) continue;
    const SweepPointStatus& base_point = (*points)[base->second];
    point.baseline = base_point.benchmark;
    point.speedup = Speedup(MedianFigures(point.figures), MedianFigures(base_point.figures));
    if (point.speedup) {
      point.efficiency = ScalingEfficiency(*point.speedup, point.parameters.workers, base_point.parameters.workers);
    }
  }
}

std::string ShowValue(double value) {
  char text[32];
  std::snprintf(text, sizeof text, value >= 100 ? "%.0f" : "%.3g", value);
  return text;
}

// The best succeeded point by the first figure of this list that any succeeded point has.
std::string BestPoint(const std::vector<SweepPointStatus>& points) {
  struct Ranking {
    const char* figure;
    bool higher_is_better;
    double scale;
    const char* unit;
  };
  static const Ranking kRankings[] = {{"timeToAccuracySeconds", false, 1, "s to accuracy"},
                                      {"samplesPerSecond", true, 1, "samples/s"},
                                      {"tokensPerSecond", true, 1, "tokens/s"},
                                      {"peakBusBandwidthBytesPerSecond", true, 1e9, "GB/s bus bandwidth"}};
  for (const Ranking& r : kRankings) {
    const SweepPointStatus* best = nullptr;
    for (const SweepPointStatus& p : points) {
      const auto f = p.figures.find(r.figure);
      if (p.phase != kPhaseSucceeded || f == p.figures.end()) continue;
      const double median = best == nullptr ? 0 : best->figures.at(r.figure).median;
      if (best == nullptr || (r.higher_is_better ? f->second.median > median : f->second.median < median)) best = &p;
    }
    if (best != nullptr) return best->benchmark + " (" + ShowValue(best->figures.at(r.figure).median / r.scale) + " " + r.unit + ")";
  }
  return "";
}

}  // namespace

std::vector<SweepPointStatus> AggregatePoints(const std::vector<SweepPoint>& points,
                                              const std::map<std::string, Benchmark>& children,
                                              const std::vector<SweepPointStatus>& recorded) {
  std::map<std::string, const SweepPointStatus*> recorded_of;
  for (const SweepPointStatus& r : recorded) recorded_of[r.benchmark] = &r;
  std::vector<const SweepPoint*> by_index;
  for (const SweepPoint& p : points) by_index.push_back(&p);
  std::sort(by_index.begin(), by_index.end(), [](const SweepPoint* a, const SweepPoint* b) { return a->index < b->index; });
  std::vector<SweepPointStatus> out;
  for (const SweepPoint* p : by_index) {
    SweepPointStatus status;
    status.index = p->index;
    status.benchmark = p->benchmark.metadata.name;
    status.parameters = p->parameters;
    status.spec_digest = SpecDigest(p->spec);
    const auto child = children.find(status.benchmark);
    const auto before = recorded_of.find(status.benchmark);
    if (child != children.end()) {
      const BenchmarkStatus& s = child->second.status;
      status.phase = s.phase.empty() ? kPhasePending : s.phase;
      if (s.phase == kPhaseFailed) status.message = FailureMessage(s);
      if (s.results && s.phase == kPhaseSucceeded) {
        status.figures = FiguresOf(*s.results);
        status.mlperf = s.results->mlperf;
        status.run_start_ms = s.results->figures.run_start_ms;
        status.run_stop_ms = s.results->figures.run_stop_ms;
      }
    } else if (before != recorded_of.end() && IsFinished(before->second->phase) &&
               before->second->spec_digest == status.spec_digest) {
      status.phase = before->second->phase;
      status.message = before->second->message;
      status.figures = before->second->figures;
      status.mlperf = before->second->mlperf;
      status.run_start_ms = before->second->run_start_ms;
      status.run_stop_ms = before->second->run_stop_ms;
    }
    out.push_back(std::move(status));
  }
  CompareWithSeriesBaseline(&out);
  return out;
}

void TallyPoints(std::vector<SweepPointStatus> points, const BenchmarkSweepSpec& spec, BenchmarkSweepStatus* status) {
  status->total = static_cast<int64_t>(points.size());
  status->succeeded = status->failed = status->running = 0;
  for (const SweepPointStatus& p : points) {
    if (p.phase == kPhaseSucceeded) ++status->succeeded;
    if (p.phase == kPhaseFailed) ++status->failed;
    if (!p.phase.empty() && !IsFinished(p.phase)) ++status->running;
  }
  status->progress = std::to_string(status->succeeded + status->failed) + "/" + std::to_string(status->total);
  status->best = BestPoint(points);
  const nlohmann::json task = spec.template_spec.is_object() ? spec.template_spec.value("task", nlohmann::json()) : nullptr;
  status->weak_scaling = ScoreInstances(MlperfBenchmarkName(task.is_string() ? task.get<std::string>() : ""), points);
  status->points = std::move(points);
}

}  // namespace ergobench
