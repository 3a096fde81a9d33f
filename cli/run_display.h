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

// Where a run stands besides its latest event: the time since `ergobench run` started it, the
// estimate of the time left (SecondsLeft), and for a sweep's point which point of how many
// ("point 3/12").
struct ProgressTimes {
  double elapsed_seconds = 0;
  std::optional<double> seconds_left;
  std::string place;
};

// The share of the most work the run may do that is done: 0a's sizes, gpt's steps, or the
// epochs up to spec.maxEpochs. Absent before the first unit of work.
std::optional<double> DoneFraction(const Benchmark& benchmark, const ProgressEvent& latest);

// The time the rest of the work takes at the rate it went from the first observation (the
// share done, the time) to the latest; absent until it has moved and a second has passed.
std::optional<double> SecondsLeft(double first_fraction, double first_seconds, double fraction, double seconds);

// "task1a-k2 · 1a gloo k=2 · epoch 3/164 · 50/100 · 1% · loss 0.5123 · accuracy 0.7100 → goal
// 0.8000 · 0:05, ≤7:40 left". The time left extrapolates the work done so far at its rate; it is
// an upper bound ("≤") where a goal may end the run sooner.
std::string FormatProgressLine(const Benchmark& benchmark, const ProgressEvent& latest, const ProgressTimes& times);

// The per-size table of task 0a from its allreduce.json.
std::string FormatAllreduceTable(const nlohmann::json& table);

// Outcome, headline figures, and where the files are.
std::string FormatRunReport(const LocalRunReport& report);

// A sweep's points: parameters, phase, median samples/s and time to accuracy with the repeats'
// range, speedup and scaling efficiency; headed by its phase and best point.
std::string FormatSweepTable(const BenchmarkSweep& sweep);

}  // namespace ergobench
