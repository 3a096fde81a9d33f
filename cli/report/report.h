// `ergobench report`: compares finished Benchmarks, as MLBench's dashboard and papers do.
// Runs are grouped by (task, goal, system): a scaling series is the runs of one task, goal,
// system (cloud, instance type, region; api/v1alpha1/system.h) and backend, and its speedup, scaling
// efficiency and MLBench's price index (price increase / performance increase) are against the
// series' run with the fewest workers, never a run on another system. Across systems, runs of
// the same task and goal are compared like with like on time, cost, energy and carbon to
// accuracy, and the Pareto-optimal ones (time x cost, time x energy) are marked.
// Pure functions over Benchmarks with status.results, so that recorded results pin every
// number in tests.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/benchmark.h"
#include "base/status.h"
#include "cli/report/training_curves.h"

namespace ergobench {

struct ReportRow {
  std::string name;
  std::string task;
  std::string goal;    // "accuracy>=0.8"; empty for a task without one (0a)
  std::string system;  // SystemIdentity::Name(); "unknown" for results that do not say
  std::string backend;
  int64_t workers = 1;
  std::string phase;
  std::optional<double> samples_per_second;
  std::optional<double> time_to_accuracy_seconds;
  std::optional<double> speedup;     // over the baseline: by time to accuracy when both reached it, else throughput
  std::optional<double> efficiency;  // speedup / (workers / baseline workers)
  std::optional<double> communication_ratio;
  // The data path (IoFigures): the step's wait for data, what it read per second, the rate it
  // prepared samples at; I/O-bound past training_phases.h's kIoBoundShare.
  std::optional<double> data_wait_share;
  std::optional<double> data_bytes_per_second;
  std::optional<double> loading_samples_per_second;
  bool io_bound = false;
  // Training runs: spec.hyperparameters.gradientSync, the collectives' whole time per rank, and
  // the share of it backward hid (1 - waited / whole; 0 for flat).
  std::string gradient_sync;
  std::optional<int64_t> zero_stage;  // gradientSync sharded
  std::optional<int64_t> peak_tensor_bytes;    // per rank, the largest rank's
  std::optional<int64_t> peak_resident_bytes;
  std::optional<double> collective_seconds;
  std::optional<double> hidden_communication;
  std::optional<double> energy_to_accuracy_joules;
  std::optional<double> samples_per_wh;  // CARAML's images/Wh
  std::optional<double> epoch_wh;        // per epoch of the task's reference training set
  // From node energy agents: whether other pods ran on the nodes (the energy is then the
  // nodes', an upper bound); absent where no agent said, as in a local run.
  std::optional<bool> energy_shared;
  std::optional<double> cost_to_accuracy;       // on demand
  std::optional<double> spot_cost_to_accuracy;
  std::optional<double> cost;                   // of the run's timed region, on demand
  std::optional<double> cost_per_million_samples;
  std::optional<double> carbon_to_accuracy_grams;
  bool cost_stale = false;                      // a price was older than the limit
  std::vector<std::string> warnings;            // the results' cost warnings
  // Not beaten on both time to accuracy and cost (energy) to accuracy by another run of the
  // same task and goal, on any system.
  bool pareto_time_cost = false;
  bool pareto_time_energy = false;
  std::optional<double> price_index;  // (hourly price / baseline's) / speedup; 1 is linear
  // Language models, CARAML's columns: global batch (sequences), tokens/s, seconds per
  // iteration, model TFLOP/s per device, MFU, energy per token.
  std::optional<int64_t> global_batch_size;
  std::optional<double> tokens_per_second;
  std::optional<double> seconds_per_iteration;
  std::optional<double> tflops_per_device;
  std::optional<double> mfu;  // the language model's, else the counted model FLOPs' (every training task)
  std::optional<double> model_flops_per_second;  // all ranks'
  std::string peak_basis;
  std::optional<double> achievable_flops_per_second;  // all ranks' best GEMM
  std::optional<double> joules_per_token;
  // Translation (4b): BLEU, tokens/s on either side, and mixed precision's loss scaling (the
  // scale at the end, the updates skipped).
  std::optional<double> bleu;
  std::optional<double> source_tokens_per_second;
  std::optional<double> target_tokens_per_second;
  std::optional<double> loss_scale;
  std::optional<int64_t> skipped_updates;
  // Task 0a: the all-reduce sweep's peak bus bandwidth, the message size it was reached at, and
  // the smallest message's median latency.
  std::optional<double> peak_bus_bandwidth;  // bytes/s
  std::optional<double> peak_bus_bandwidth_bytes;
  std::optional<double> min_latency_seconds;
  std::string currency;
  std::string baseline;  // the run compared against
  // With spec.repeats: how many, and each headline figure's statistics (the figures above are
  // the medians).
  int64_t repeats = 0;
  std::map<std::string, Summary> spread;
  std::optional<MlperfScore> mlperf;  // repeats with a goal, as MLPerf scores them
};

// Rows in a stable order: by task, goal, system, backend, then workers.
std::vector<ReportRow> BuildReport(const std::vector<Benchmark>& runs);

// text (aligned columns), markdown, csv or json. The language-model and all-reduce columns
// appear when a row has them; text and markdown end with the rows' cost warnings.
StatusOr<std::string> FormatReport(const std::vector<ReportRow>& rows, const std::string& format);

// Benchmarks from `ergobench run` result directories: a directory with benchmark.json, or
// one whose subdirectories have one (ergobench-results/). A task 0a run's per-size table
// (allreduce.json beside it) goes into `allreduce_tables` under RunKey(), and rank 0's training
// curve (rank-0.mllog, training_curves.h) into `curves`, when given.
using AllreduceTables = std::map<std::string, nlohmann::json>;
StatusOr<std::vector<Benchmark>> LoadResultDirectories(const std::vector<std::string>& paths,
                                                       AllreduceTables* allreduce_tables = nullptr,
                                                       TrainingCurves* curves = nullptr);

// The name of the system a run measured (SystemIdentity::Name()); "unknown" for results that do
// not say.
std::string SystemName(const Benchmark& run);

// A run's identity among runs read from several places: its uid, else namespace/name@startTime.
std::string RunKey(const Benchmark& run);

}  // namespace ergobench
