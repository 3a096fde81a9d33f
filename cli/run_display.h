// What `ergobench run` shows: the live progress line and the final result table. Pure
// functions of the Benchmark, the latest progress event and the outcome, so that the
// exact text is tested.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "api/contract/progress_event.h"
#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/sweep.h"
#include "cli/local/local_executor.h"

namespace ergobench {

// "task0a-k2 · 0a gloo k=2 · 34/80 · 64.0 KiB: median 120 us, busbw 1.10 GB/s · 0:05"
std::string FormatProgressLine(const Benchmark& benchmark, const ProgressEvent& latest, double elapsed_seconds);

// The per-size table of task 0a from its allreduce.json.
std::string FormatAllreduceTable(const nlohmann::json& table);

// Outcome, headline figures, and where the files are.
std::string FormatRunReport(const LocalRunReport& report);

// A sweep's points: parameters, phase, median samples/s and time to accuracy with the repeats'
// range, speedup and scaling efficiency; headed by its phase and best point.
std::string FormatSweepTable(const BenchmarkSweep& sweep);

}  // namespace ergobench
