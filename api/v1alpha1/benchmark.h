// The Benchmark resource (ergobench.io/v1alpha1) as plain C++ types: what a user writes
// (spec) and what the operator or `ergobench run` reports (status). Shared by every binary;
// the JSON form lives in benchmark_codec.h, defaults in defaults.h, checks in validation.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/object_meta.h"
#include "api/v1alpha1/result.h"

namespace ergobench {

inline constexpr char kGroup[] = "ergobench.io";
inline constexpr char kApiVersion[] = "ergobench.io/v1alpha1";
inline constexpr char kKind[] = "Benchmark";
// The label on every child of a Benchmark (its worker pods among them), naming it: what the
// operator selects by, `ergobench report` lists by and the node energy agent tells gangs by.
inline constexpr char kBenchmarkLabel[] = "ergobench.io/benchmark";


struct Goal {
  std::string metric;             // "accuracy"
  std::optional<double> target;   // 0.80; defaults from the catalog
  bool light = false;             // take the catalog's light target instead of the reference one
};

struct DatasetSpec {
  std::string source;  // synthetic | path | url
  // With source path: a directory on the machine, or, with ref or volume, a folder inside
  // that volume ("" for its root).
  std::string path;
  std::string url;
  std::string sha256;
  // On a cluster only, at most one of them, mounted read-only into every worker:
  std::string ref;  // a Dataset (dataset.h) in the Benchmark's namespace
  nlohmann::json volume = nlohmann::json::object();  // a core/v1 volume source: {persistentVolumeClaim: {...}}
};

struct Resources {
  std::string cpu;     // Kubernetes quantity: "3", "500m"
  std::string memory;  // Kubernetes quantity: "8Gi"
  int64_t gpu = 0;
};

struct Scheduling {
  // Worker pods a node may hold, placed together: MLBench's one worker per node by default,
  // so that each rank's energy and network are its own. More than 1 packs ranks (a node's
  // GPUs); a local run is one node whatever it says.
  int64_t ranks_per_node = 1;
  std::map<std::string, std::string> node_selector;
  nlohmann::json tolerations = nlohmann::json::array();  // core/v1 Tolerations, passed through
  std::string scheduler_name;
  std::string priority_class_name;
};

// What rank 0's MLPerf log says of the submission (submission_org, _platform, _division,
// _status). Empty fields take the runner's defaults: org "unspecified", platform "<k>x<CPU
// model>", division open, status research.
struct Submission {
  std::string org;
  std::string platform;
  std::string division;  // closed | open
  std::string status;    // cloud | onprem | preview | research
};

struct Pricing {
  std::string currency;  // ISO 4217: "USD"
  std::optional<double> worker_hour;
  std::optional<double> preemptible_worker_hour;
  std::optional<double> accelerator_hour;
  std::string label;   // an instance type of the price catalog: "n1-standard-4"
  std::string region;  // the label's region in the catalog; empty: the nodes'
};

struct RunPolicy {
  int64_t backoff_limit = 0;
  std::optional<int64_t> active_deadline_seconds;
  std::optional<int64_t> ttl_seconds_after_finished;
  std::string clean_pod_policy;  // All | Running | None
  // The results ConfigMap outlives the Benchmark (no ownerReference): a TTL or a deletion
  // leaves what the run measured.
  bool keep_results = false;
};

// What a run is compared with, and how much worse each figure may be (regression.h). One
// source: a finished Benchmark or a kept results ConfigMap in the namespace, or, for
// `ergobench run`, a results directory.
struct Baseline {
  std::string benchmark;
  std::string config_map;
  std::string path;
  // Percent by headline figure ("samplesPerSecond": 5); figures left out take the defaults.
  std::map<std::string, double> tolerances;
};

struct BenchmarkSpec {
  std::string task;
  int64_t workers = 1;  // k ranks
  std::string backend;  // gloo | mpi | nccl
  std::string device;   // cpu | cuda
  std::optional<Goal> goal;
  std::optional<int64_t> max_epochs;
  DatasetSpec dataset;
  nlohmann::json hyperparameters = nlohmann::json::object();
  std::string image;
  Resources resources;
  Scheduling scheduling;
  std::optional<Pricing> pricing;
  std::optional<Submission> submission;
  RunPolicy run_policy;
  int64_t repeats = 1;  // runs of the whole gang, one after another, seeds derived (repeats.h)
  std::optional<Baseline> baseline;
};


struct WorkerCounts {
  int64_t ready = 0;
  int64_t running = 0;
  int64_t succeeded = 0;
  int64_t failed = 0;
};

// What an estimate of the time left extrapolates (Progress::estimated_from,
// api/analysis/progress_estimate.h).
inline constexpr char kEstimatedFromWork[] = "work";  // the work left, at its rate so far
inline constexpr char kEstimatedFromGoal[] = "goal";  // the goal metric's trend over the last two evaluations

struct Progress {
  std::optional<int64_t> epoch;
  std::optional<int64_t> max_epochs;  // spec.maxEpochs: the epoch of at most how many
  std::optional<int64_t> step;
  std::string metric;
  std::optional<double> value;
  std::optional<double> goal;  // the target `value` must reach
  // Rank 0's estimate (api/analysis/progress_estimate.h): the percent of the most work done, the
  // time left, and what that extrapolates ("work" or "goal").
  std::optional<double> percent;
  std::optional<int64_t> seconds_left;
  std::string estimated_from;
  // Of the steps since the operator's previous read of rank 0 (--progress-interval): a link
  // slowed mid-run shows here at once, where the run's ratio would take the rest of the run.
  std::optional<double> communication_ratio;
};

// Short strings with units for kubectl's columns ("13.8k samples/s", "35.2 kJ"), written with
// every status from the rest of it (benchmark_display.h); the precise numbers stay in progress
// and results.
struct BenchmarkDisplay {
  std::string progress;          // "42% · epoch 3/164 · accuracy 0.71→0.8 · ≤7m40s left"
  std::string throughput;        // the task's headline rate: "13.8k samples/s", "2.35 GB/s" for 0a
  std::string time_to_accuracy;  // "4.9 s"
  std::string energy;            // "35.2 kJ"
  std::string cost;              // "0.00189 USD"
};

struct BenchmarkStatus {
  std::string phase;  // Pending | Running | Succeeded | Failed
  std::vector<Condition> conditions;
  std::string start_time;
  std::string completion_time;
  WorkerCounts workers;
  int64_t observed_generation = 0;  // the spec generation the current gang runs
  int64_t restarts = 0;  // gang restarts of that generation so far (runPolicy.backoffLimit caps them)
  std::optional<Progress> progress;
  // With spec.repeats: the repeats done so far; the current gang runs repeat repeats.size().
  // They move into results.repeats when the last one ends.
  std::vector<RepeatResult> repeats;
  std::optional<BenchmarkResults> results;
  std::optional<BenchmarkDisplay> display;
};

struct Benchmark {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  BenchmarkSpec spec;
  BenchmarkStatus status;
};

}  // namespace ergobench
