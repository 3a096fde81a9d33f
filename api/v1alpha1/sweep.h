// The BenchmarkSweep resource (ergobench.io/v1alpha1): one Benchmark template and a matrix over
// workers, backends, hyperparameters and systems, run as one child Benchmark per point, as
// MLBench's `mlbench run NAME 1 2 4 8` and CARAML's JUBE parameter sets are. The operator runs
// the points under a concurrency limit (sweep_plan.h); `ergobench run` runs them one after
// another. Each point's figures, and its speedup over the smallest k of its series, are
// aggregated into the sweep's status (sweep_status.h).
//
// Types, the JSON form and the expansion into points. Expansion is where a sweep is validated:
// every point must be a valid Benchmark, and the error names the point and the field.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/result.h"
#include "api/v1alpha1/summary.h"
#include "base/field_errors.h"
#include "base/status.h"

namespace ergobench {

inline constexpr char kSweepKind[] = "BenchmarkSweep";
// On every child Benchmark: the sweep's name and the point's index.
inline constexpr char kSweepLabel[] = "ergobench.io/sweep";
inline constexpr char kSweepPointLabel[] = "ergobench.io/sweep-point";
// A digest of the point's spec: a child whose spec the sweep no longer renders is replaced.
inline constexpr char kSweepPointSpecAnnotation[] = "ergobench.io/sweep-point-spec";

inline constexpr int64_t kMaxSweepPoints = 256;

// Scaling: weak keeps each worker's batch as written (the global batch grows with k); strong
// reads the point's batchSize as the global batch and gives each of the k workers its share.
inline constexpr char kScalingWeak[] = "weak";
inline constexpr char kScalingStrong[] = "strong";
// Order of the points: as the matrix lists them, reversed, or shuffled by a fixed permutation
// of the sweep's name (so that a drift of the machine does not line up with k).
inline constexpr char kOrderListed[] = "listed";
inline constexpr char kOrderReversed[] = "reversed";
inline constexpr char kOrderShuffled[] = "shuffled";
// A failed point: the others still run (Continue), or no new one starts (Stop).
inline constexpr char kFailureContinue[] = "Continue";
inline constexpr char kFailureStop[] = "Stop";

// A system the sweep runs on, named by the user: what its points' spec takes from it.
struct SweepSystem {
  std::string name;
  nlohmann::json scheduling;  // spec.scheduling of its points (a nodeSelector per instance type)
  nlohmann::json resources;   // spec.resources, when the systems differ in size
  nlohmann::json pricing;     // spec.pricing
};

struct SweepMatrix {
  std::vector<int64_t> workers;        // empty: the template's
  std::vector<std::string> backends;   // "backend"; empty: the template's
  std::map<std::string, std::vector<nlohmann::json>> hyperparameters;  // name → values
  std::vector<SweepSystem> systems;    // empty: the template's scheduling
};

struct BenchmarkSweepSpec {
  nlohmann::json template_spec = nlohmann::json::object();  // "template": a Benchmark spec
  SweepMatrix matrix;
  std::string scaling = kScalingWeak;
  std::optional<int64_t> repeats;  // each point's spec.repeats
  // Weak scaling as MLPerf HPC measures it: each point trains this many model instances at
  // once, each its own gang with its own seed (the recipe's plus the instance), scored as
  // models trained per minute (weak_scaling.h).
  std::optional<int64_t> instances;
  int64_t concurrency = 1;  // points running at once (on a cluster); written or not, `instances`
  std::string order = kOrderListed;
  std::string failure_policy = kFailureContinue;
};

// What a point varies, as the status and the report show it.
struct SweepParameters {
  int64_t workers = 1;
  std::string backend;
  std::string system;  // the systems axis' name; empty without one
  nlohmann::json hyperparameters = nlohmann::json::object();  // the matrix's, at their point values
  std::optional<int64_t> instance;  // with spec.instances: which of the point's instances

  bool operator==(const SweepParameters&) const = default;
};

struct SweepPointStatus {
  int64_t index = 0;
  std::string benchmark;  // the child's name
  SweepParameters parameters;
  std::string phase;      // the child's: Pending | Running | Succeeded | Failed; empty: not created
  std::string message;    // why it failed
  std::map<std::string, Summary> figures;  // headline figures (repeats.h): n, median, extremes, interval
  // Against the series' (same system, backend, hyperparameters) succeeded point of fewest workers:
  // by time to accuracy when both reached the goal, else by throughput, as `ergobench report`.
  std::optional<double> speedup;
  std::optional<double> efficiency;  // speedup / (workers / the baseline's)
  std::string baseline;              // the point compared against
  // SpecDigest of the point's spec: an ended point's phase and figures stand, once its child is
  // gone, for as long as the sweep renders the point the same.
  std::string spec_digest;
  std::optional<MlperfScore> mlperf;  // the point's repeats with a goal, as MLPerf scores them
  // Its run_start and run_stop (Unix ms, as mllog's time_ms), which a weak-scaling score spans.
  std::optional<int64_t> run_start_ms;
  std::optional<int64_t> run_stop_ms;
};

// MLPerf HPC's weak-scaling score of one point's instances (hpc_training_rules, "throughput"):
// the instances that converged (M') over the time to train them all (TTTa: the first
// run_start to the last run_stop, in minutes). An instance that did not converge is pruned, as
// the rules allow, and named.
struct WeakScalingScore {
  SweepParameters parameters;  // the point's, without an instance
  int64_t instances = 0;       // M
  int64_t converged = 0;       // M'
  std::vector<std::string> pruned;  // "s-3: did not converge"
  std::optional<double> time_to_train_all_minutes;  // absent: no score, and `note` says why
  std::optional<double> models_per_minute;
  int64_t required_instances = 0;  // MLPerf HPC's for the benchmark; 0 where it has none
  bool complete = false;           // converged instances at least as many as it requires
  std::string note;
  bool operator==(const WeakScalingScore&) const = default;
};

struct BenchmarkSweepStatus {
  std::string phase;  // Pending | Running | Succeeded | Failed
  std::vector<Condition> conditions;
  int64_t observed_generation = 0;
  std::string start_time;
  std::string completion_time;
  int64_t total = 0;
  int64_t succeeded = 0;
  int64_t failed = 0;
  int64_t running = 0;
  std::string progress;  // "3/6": ended points of all
  std::string best;      // "name-2 (1234 samples/s)"
  std::vector<SweepPointStatus> points;
  std::vector<WeakScalingScore> weak_scaling;  // with spec.instances, a score a point
};

struct BenchmarkSweep {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  BenchmarkSweepSpec spec;
  BenchmarkSweepStatus status;
};

// One point of the matrix, ready to run.
struct SweepPoint {
  int64_t index = 0;  // position in the matrix (its child's name ends with it)
  SweepParameters parameters;
  nlohmann::json spec;  // the template with the point's values, as the child is created with it
  Benchmark benchmark;  // that spec decoded, defaulted and valid; metadata: name, namespace, labels
};

// Decodes strictly, as DecodeBenchmark does; the status goes to `status_errors` when given.
BenchmarkSweep DecodeSweep(const nlohmann::json& json, FieldErrors* errors, FieldErrors* status_errors = nullptr);
nlohmann::json EncodeSweepSpec(const BenchmarkSweepSpec& spec);
nlohmann::json EncodeSweepStatus(const BenchmarkSweepStatus& status);

// A digest of a point's rendered spec (FNV-1a of its JSON, keys sorted), for
// kSweepPointSpecAnnotation: equal specs, equal digests.
std::string SpecDigest(const nlohmann::json& spec);

// "<sweep>-<index>": short and predictable, whatever the point varies.
std::string SweepPointName(const std::string& sweep, int64_t index);

// Every point in the order the sweep runs them, each a valid Benchmark. Adds to `errors` every
// problem of the sweep and of its points, each naming its field; a point's names the point
// ("point sweep-2 (workers=4) spec.hyperparameters.batchSize: ...").
std::vector<SweepPoint> ExpandSweep(const BenchmarkSweep& sweep, FieldErrors* errors);

// "workers=4 backend=gloo batchSize=64 system=c5 instance=2": what the point varies, for messages.
std::string DescribeParameters(const SweepParameters& parameters);

}  // namespace ergobench
