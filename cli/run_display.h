// What `ergobench run` shows: the live progress line and the final result table. Pure
// functions of the Benchmark, the latest progress event and the outcome, so that the
// exact text is tested.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "api/contract/progress_event.h"
#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/sweep.h"
#include "cli/local/local_executor.h"

namespace ergobench {

// Where a run stands besides its latest event: the time since `ergobench run` started it, and
// for a sweep's point which point of how many ("point 3/12").
struct ProgressTimes {
  double elapsed_seconds = 0;
  std::string place;
};

// "task1a-k2 · 1a gloo k=2 · epoch 3/164 · 50/100 · 1% · loss 0.5123 · accuracy 0.7100 → goal
// 0.8000 · 0:05, ≤7:40 left". The share done and the time left are the runner's estimate
// (api/analysis/progress_estimate.h): "≤7:40 left" extrapolates the work, an upper bound where a
// goal may end the run sooner; "~2:10 to goal" follows the goal metric's trend.
std::string FormatProgressLine(const Benchmark& benchmark, const ProgressEvent& latest, const ProgressTimes& times);

// The per-size table of task 0a from its allreduce.json.
std::string FormatAllreduceTable(const nlohmann::json& table);

// Outcome, headline figures, and where the files are.
std::string FormatRunReport(const LocalRunReport& report);

// A sweep's points: parameters, phase, median samples/s and time to accuracy with the repeats'
// range, speedup and scaling efficiency; headed by its phase and best point.
std::string FormatSweepTable(const BenchmarkSweep& sweep);

}  // namespace ergobench
