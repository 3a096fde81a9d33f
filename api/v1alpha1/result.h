// The result schema. Each runner rank writes a RankResult (the Kubernetes termination
// message, so at most 4 KiB); the operator and `ergobench run` read them back and fold
// them into BenchmarkResults, the `status.results` of a Benchmark (aggregate.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/summary.h"
#include "api/v1alpha1/system.h"
#include "base/field_errors.h"
#include "base/json_fields.h"
#include "base/status.h"

namespace ergobench {

// Kubernetes truncates termination messages beyond this size.
inline constexpr size_t kTerminationMessageLimit = 4096;

inline constexpr char kRankSucceeded[] = "Succeeded";
inline constexpr char kRankFailed[] = "Failed";
inline constexpr char kRankCancelled[] = "Cancelled";

// Task 0a's headline figures; the per-size table is written beside the result.
struct AllreduceSummary {
  int64_t sizes = 0;
  int64_t repetitions = 0;
  std::string dtype;
  double peak_bus_bandwidth_bytes_per_second = 0;
  int64_t peak_bus_bandwidth_bytes = 0;   // message size at which the peak was reached
  double min_latency_seconds = 0;         // median latency of the smallest message
  std::string collective;  // nccl-tests' name: all_reduce, all_gather, ... (empty before it was recorded)
  bool operator==(const AllreduceSummary&) const = default;
};

// The language-model task's figures: CARAML's columns (global batch size, tokens/s, time
// per iteration, TFLOP/s per device) and MFU. Model FLOPs per token are 6N + 12·L·h·S
// (runner/models/gpt_config.h). Folded over ranks: tokens and tokens/s add up; TFLOP/s
// and MFU are per device, so they average.
struct LanguageModelSummary {
  std::string model;  // the preset, or "custom"
  int64_t parameters = 0;
  int64_t sequence_length = 0;
  int64_t global_batch_size = 0;  // sequences per optimizer step, all workers
  std::string precision;          // fp32 | bf16 | fp16
  int64_t tokens = 0;             // training tokens between run_start and run_stop
  double tokens_per_second = 0;   // over the throughput window
  double seconds_per_iteration = 0;
  double flops_per_token = 0;
  double model_tflops_per_second = 0;  // per device
  std::optional<double> peak_tflops;   // per device, what MFU divides by
  std::optional<double> mfu;
  std::optional<double> eval_loss;  // the last validation loss, nats per token
  bool operator==(const LanguageModelSummary&) const = default;
};

// Memory per rank, where the task measures it (the training tasks). Tensor bytes are what
// torch's CPU allocator handed out; the peak is over the training steps (evaluation apart).
// Parameters, gradients and optimizer state are exact, from the sizes this rank holds;
// activations are the rest of the peak: activations, backward's temporaries and, with
// gradientSync sharded stage 2, the gradient buffers in flight. Folded over ranks: each
// figure the largest rank's, which is what has to fit.
struct MemoryFigures {
  int64_t peak_resident_bytes = 0;  // the process's peak RSS
  int64_t peak_tensor_bytes = 0;    // on the training device: the CPU's, or the rank's GPU's
  int64_t parameter_bytes = 0;
  int64_t gradient_bytes = 0;  // what the gradient sync keeps through the update (gradient_sync.h)
  int64_t optimizer_state_bytes = 0;
  int64_t activation_bytes = 0;
  // On a GPU, the most torch's caching allocator reserved from it (live tensors and its cache).
  std::optional<int64_t> peak_reserved_bytes;
  bool operator==(const MemoryFigures&) const = default;
};

// The data path's I/O, where a training task measures it (io_figures in runner/train). Bytes
// are of the data set's files as the readers read them (compressed where the files are),
// between run_start and run_stop: the first read of the data counts, as MLPerf times it.
// Storage bytes are what the kernel fetched for the process from below the page cache
// (/proc/self/io read_bytes): zero for data already cached. Loading samples/s is what the data
// path delivered per second it worked (its read and preparation, not training's wait for it),
// the rate it could feed training at. Folded over ranks: bytes and rates add up; the load time
// is the slowest rank's.
struct IoFigures {
  int64_t data_bytes = 0;
  double data_bytes_per_second = 0;  // over runSeconds
  std::optional<int64_t> storage_bytes;
  double load_seconds = 0;  // the task's first read of its data, inside the run
  std::optional<double> loading_samples_per_second;
  bool operator==(const IoFigures&) const = default;
};

// Figures every task may report; each is absent when the task does not measure it.
// Tasks 4a and 4b (MLBench's translation): corpus BLEU, and the tokens each side of the pair
// went through. Folded over ranks: tokens and tokens/s add up; BLEU is one corpus score that
// every rank computes alike.
struct TranslationSummary {
  std::optional<double> bleu;            // the last evaluation's, sacreBLEU's 0 to 100
  int64_t source_tokens = 0;             // over the run, <\s> included, padding not
  int64_t target_tokens = 0;
  double source_tokens_per_second = 0;   // over the throughput window
  double target_tokens_per_second = 0;
  std::string precision;
  int64_t beam = 1;                      // decoding's beam width (1: greedy)
  bool operator==(const TranslationSummary&) const = default;
};

struct Figures {
  double init_seconds = 0;  // rendezvous and set-up, before run_start
  double run_seconds = 0;   // run_start .. run_stop
  // When run_start and run_stop were, in Unix ms as mllog's time_ms: what a weak-scaling
  // score spans over instances (sweep.h). Folded over ranks: the first start, the last stop.
  std::optional<int64_t> run_start_ms;
  std::optional<int64_t> run_stop_ms;
  std::optional<bool> goal_reached;
  std::optional<double> time_to_accuracy_seconds;
  std::optional<int64_t> epochs;
  std::optional<double> samples_per_second;
  // The window samples_per_second covers: the steps after the warm-up, and their time.
  std::optional<int64_t> throughput_window_steps;
  std::optional<double> throughput_window_seconds;
  std::map<std::string, double> phase_seconds;  // data, forward, ..., communication, eval
  std::optional<double> compute_seconds;
  std::optional<double> communication_seconds;
  std::optional<double> communication_ratio;
  // The share of the step time the step waited for its data (training_phases.h's one
  // definition); a run over kIoBoundShare of it is I/O-bound.
  std::optional<double> data_wait_share;
  // How long the collectives took, launch to completion, whether the step waited for them or
  // they ran beside backward (gradientSync overlap); communication_seconds is only the time
  // the step waited. Mean per rank, as the phases.
  std::optional<double> collective_seconds;
  std::optional<int64_t> samples;  // training samples this rank processed between run_start and run_stop
  // Energy, where a meter could read (energy_meter.h); absent, never zero, where none could.
  std::optional<double> energy_joules;             // run_start .. run_stop
  std::optional<double> energy_joules_whole_run;   // process start to end, initialisation included
  std::optional<double> energy_to_accuracy_joules;  // run_start .. the evaluation that reached the goal
  // From a node energy agent, which measures the whole node: the other pods that ran there
  // meanwhile ("namespace/name"; empty: the node was this Benchmark's alone). Absent where no
  // agent said, as in a local run. Encoded with energyShared, true when non-empty.
  std::optional<std::vector<std::string>> energy_shared_with;
  std::optional<AllreduceSummary> allreduce;
  std::optional<LanguageModelSummary> language_model;
  std::optional<TranslationSummary> translation;
  // Mixed precision's dynamic loss scaling (runner/train/loss_scaler.h), where a run scaled:
  // the scale at the end, and the updates skipped for an inf or NaN gradient (every rank alike).
  std::optional<double> loss_scale;
  std::optional<int64_t> skipped_updates;
  std::optional<MemoryFigures> memory;
  std::optional<IoFigures> io;
  // Model FLOPs (runner/train/flop_counter.h), counted from the layers' matrix products and
  // convolutions: a training sample's (3 x its forward's, backward being twice the forward), the
  // rate at the throughput window's samples/s, the peak of what the ranks train on (the cores'
  // theoretical peak on CPUs, the datasheet's on GPUs: runner/train/rank_peak.h) and MFU, their
  // ratio; beside the peak, the best matrix product measured on the same hardware (CPUs). Folded
  // over ranks: the rates and the peaks add up.
  std::optional<double> flops_per_sample;
  std::optional<double> model_flops_per_second;
  std::optional<double> peak_flops_per_second;
  std::string peak_basis;
  std::optional<double> achievable_flops_per_second;
  std::optional<double> mfu;
  // Of the final parameters (runner/train/parameter_digest.h), where a task trains a model;
  // empty where none.
  std::string parameter_digest;
  bool operator==(const Figures&) const = default;
};

struct RankResult {
  std::string benchmark;
  std::string task;
  std::string backend;
  int64_t rank = 0;
  int64_t world_size = 0;
  std::string status;  // kRankSucceeded | kRankFailed | kRankCancelled
  std::string error;   // why, when not Succeeded
  Figures figures;
  nlohmann::json environment = nlohmann::json::object();
  std::string summary;  // one human line
};

// A price a cost was computed with (cost.h): a catalog entry, or the spec's own.
struct PriceUsed {
  std::string kind;  // instance | accelerator | spec
  std::string instance_type;
  std::string region;
  double on_demand_hour = 0;
  std::optional<double> spot_hour;
  std::string effective_date;
  std::string source;
  std::optional<int64_t> age_days;  // at the time the run was priced
  bool stale = false;               // older than the operator's (or ergobench's) limit
  bool operator==(const PriceUsed&) const = default;
};

// Emissions: the run's energy × its region's grid carbon intensity.
struct CarbonFigures {
  std::string region;
  double grams_per_kwh = 0;
  int64_t year = 0;
  std::string source;
  std::optional<double> grams;              // the timed region
  std::optional<double> grams_to_accuracy;  // to the goal
  bool operator==(const CarbonFigures&) const = default;
};

// One repeat of a Benchmark that asks for several (repeats.h): its seed and headline figures,
// by their status.results names ("samplesPerSecond", "timeToAccuracySeconds", ...).
struct RepeatResult {
  int64_t repeat = 0;
  int64_t seed = 0;
  std::map<std::string, double> figures;
  std::optional<bool> goal_reached;  // where the run had a goal
  // All ranks' training samples from run_start to run_stop: to the goal, where it was reached,
  // as a run stops there (MLPerf's samples to converge).
  std::optional<int64_t> samples;
  std::optional<int64_t> epochs;
  bool operator==(const RepeatResult&) const = default;
};

// MLPerf's score of repeated runs of one benchmark (api/analysis/mlperf_score.h): time to train
// as the olympic mean of the converged runs' run_start..run_stop, over the runs MLPerf requires.
struct MlperfScore {
  std::string benchmark;      // MLPerf's name ("resnet"), or the task's where MLPerf has none
  int64_t required_runs = 0;  // MLPerf's count for the benchmark; 0 where it has none
  int64_t runs = 0;
  int64_t converged = 0;
  std::optional<double> time_to_train_minutes;  // absent: no score, and `note` says why
  std::optional<double> samples_to_converge;    // the converged runs' olympic mean, from 3
  std::optional<double> epochs_to_converge;
  bool complete = false;  // a score over at least the runs MLPerf requires
  std::string note;       // why there is no score, or why it is not a complete one
  bool operator==(const MlperfScore&) const = default;
};

// One headline figure against a baseline's (regression.h).
struct BaselineVerdict {
  std::string figure;
  double baseline = 0;      // the baseline's median
  double value = 0;         // this run's median
  double band_percent = 0;  // how much worse it may be
  std::string basis;        // "repeats" (both sides had them: Welch's interval) | "values"
  bool regressed = false;
  bool operator==(const BaselineVerdict&) const = default;
};

// status.results of a Benchmark: the ranks folded together.
struct BenchmarkResults {
  Figures figures;
  std::optional<double> joules_per_sample;
  std::optional<double> samples_per_wh;    // CARAML's images/Wh for the image tasks
  std::optional<double> epoch_wh;          // one epoch of the task's reference training set
  std::optional<double> joules_per_token;   // language models
  std::optional<double> tokens_per_wh;
  std::optional<double> energy_to_accuracy_wh;
  // At spec.pricing's prices (cost.h), in `currency` despite the USD in the names, which
  // the design fixed when USD was the only currency.
  std::optional<double> cost_usd;                          // the timed region
  std::optional<double> cost_to_accuracy_usd;
  std::optional<double> preemptible_cost_usd;
  std::optional<double> preemptible_cost_to_accuracy_usd;
  std::string currency;
  std::optional<double> cost_per_million_samples;  // on demand, over the timed region
  std::optional<double> cost_per_million_tokens;
  std::string cost_basis;  // what was charged: "whole nodes: 2 x m5.xlarge", "requested share: ..."
  std::vector<PriceUsed> prices;
  // Said next to the cost: a stale price, or why there is no cost.
  std::vector<std::string> cost_warnings;
  std::optional<CarbonFigures> carbon;
  std::optional<SystemIdentity> system;  // what the run measured; results group by it
  // With spec.repeats: each repeat's headline figures and, by figure, their statistics. The
  // headline figures above are then the medians; every other field is the last repeat's.
  std::vector<RepeatResult> repeats;
  std::map<std::string, Summary> summary;
  std::optional<MlperfScore> mlperf;  // repeats with a goal, scored as MLPerf scores them
  // With spec.baseline: what the run was compared with, and the verdict on each figure.
  std::string baseline;  // "Benchmark fmnist-k2", "ConfigMap fmnist-k2-results", "results/fmnist"
  std::vector<BaselineVerdict> verdicts;
  nlohmann::json environment = nlohmann::json::object();
};

// The termination message: one line of compact JSON, then the human summary line. Kept within
// `limit` bytes by shortening the environment and then the error if needed.
std::string SerializeRankResult(const RankResult& result, size_t limit = kTerminationMessageLimit);
// The result as a JSON document alone (one line), with no size limit: a local run's
// rank-<i>.json, which any JSON reader takes; the summary goes to a file of its own.
std::string RankResultJson(const RankResult& result);
// Reads a result file or termination message (only its first line is JSON; a second line is
// the summary).
StatusOr<RankResult> ParseRankResult(const std::string& text);

nlohmann::json EncodeRankResult(const RankResult& result);
RankResult DecodeRankResult(const nlohmann::json& json, FieldErrors* errors);

// The field tables (base/json_fields.h) of what resources hold: a figure's statistics over
// repeats (results.summary, a sweep point's figures), a repeat (status.repeats and
// results.repeats), and status.results, whose figures sit flat beside its own fields
// (docs/architecture.md, "The Benchmark resource").
const JsonFields<Summary>& SummaryFields();
const JsonFields<RepeatResult>& RepeatFields();
const JsonFields<MlperfScore>& MlperfScoreFields();
const JsonFields<BenchmarkResults>& BenchmarkResultsFields();

nlohmann::json EncodeSummary(const Summary& summary);
nlohmann::json EncodeBenchmarkResults(const BenchmarkResults& results);
BenchmarkResults DecodeBenchmarkResults(const nlohmann::json& json, const std::string& path,
                                        FieldErrors* errors);

}  // namespace ergobench
