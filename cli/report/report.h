// `ergobench report`: compares finished Benchmarks, as MLBench's dashboard and papers do.
// For each run: throughput, time to accuracy, speedup and scaling efficiency against the
// run of the same task and backend with the fewest workers, communication ratio, energy and
// cost to accuracy, and MLBench's price index (price increase / performance increase).
// Pure functions over Benchmarks with status.results, so that recorded results pin every
// number in tests.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/benchmark.h"
#include "base/status.h"

namespace ergobench {

struct ReportRow {
  std::string name;
  std::string task;
  std::string backend;
  int64_t workers = 1;
  std::string phase;
  std::optional<double> samples_per_second;
  std::optional<double> time_to_accuracy_seconds;
  std::optional<double> speedup;     // over the baseline: by time to accuracy when both reached it, else throughput
  std::optional<double> efficiency;  // speedup / (workers / baseline workers)
  std::optional<double> communication_ratio;
  std::optional<double> energy_to_accuracy_joules;
  // From node energy agents: whether other pods ran on the nodes (the energy is then the
  // nodes', an upper bound); absent where no agent said, as in a local run.
  std::optional<bool> energy_shared;
  std::optional<double> cost_to_accuracy;
  std::optional<double> price_index;  // (hourly price / baseline's) / speedup; 1 is linear
  // Language models, CARAML's columns: global batch (sequences), tokens/s, seconds per
  // iteration, model TFLOP/s per device, MFU, energy per token.
  std::optional<int64_t> global_batch_size;
  std::optional<double> tokens_per_second;
  std::optional<double> seconds_per_iteration;
  std::optional<double> tflops_per_device;
  std::optional<double> mfu;
  std::optional<double> joules_per_token;
  // Task 0a: the all-reduce sweep's peak bus bandwidth, the message size it was reached at, and
  // the smallest message's median latency.
  std::optional<double> peak_bus_bandwidth;  // bytes/s
  std::optional<double> peak_bus_bandwidth_bytes;
  std::optional<double> min_latency_seconds;
  std::string currency;
  std::string baseline;  // the run compared against
};

// Rows in a stable order: by task, backend, then workers.
std::vector<ReportRow> BuildReport(const std::vector<Benchmark>& runs);

// text (aligned columns), markdown, csv or json. The language-model columns appear when a
// row has them.
StatusOr<std::string> FormatReport(const std::vector<ReportRow>& rows, const std::string& format);

// Benchmarks from `ergobench run` result directories: a directory with benchmark.json, or
// one whose subdirectories have one (ergobench-results/).
StatusOr<std::vector<Benchmark>> LoadResultDirectories(const std::vector<std::string>& paths);

}  // namespace ergobench
