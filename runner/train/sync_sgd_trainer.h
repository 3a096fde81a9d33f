// Synchronous data-parallel SGD with the MLBench learning-rate schedule, timed by MLPerf's
// rules, for the image and linear tasks. A task supplies a TrainingProblem (its data, model and
// loss); the trainer supplies the epochs, sharding, evaluation, MLLOG and progress to the one
// training loop that the language model runs too (training_loop.h), which owns their order and
// the figures of the result. Only torch translation units include this header.
#pragma once

#include <optional>
#include <string>

#include <torch/torch.h>

#include "runner/data/batch_prefetcher.h"
#include "runner/data/shard.h"
#include "runner/sync/gradient_sync.h"
#include "runner/tasks/task.h"
#include "runner/train/lr_schedule.h"

namespace ergobench {

class Communicator;

// MLPerf ResNet's learning-rate schedule (lr_schedule.h): the peak is k × learningRate.
struct PolynomialLr {
  double warmup_epochs = 0;
  double power = 0;
  double end = 0;  // the rate the decay ends at
};

// MLPerf HPC CosmoFlow's schedule (lr_schedule.h's WarmupEpochDecayLr): learningRate at epoch
// 0, the peak learningRate x the global batch / base_batch after the warm-up, then stepped down.
struct EpochDecayLr {
  int64_t base_batch = 64;
  int64_t warmup_epochs = 0;
  std::vector<EpochDecay> decays;
};

// The hyperparameters every training task shares, read from spec.hyperparameters.
struct SgdRecipe {
  int64_t batch = 0;         // samples per micro-batch
  int64_t accumulation = 1;  // micro-batches per step, averaged: a step takes batch × accumulation
  double lr = 0;
  double momentum = 0;
  bool nesterov = false;
  double weight_decay = 0;
  // The schedule: MLBench's (warm-up over log2 k epochs, then divided on a plateau), or
  // MLPerf's where the task's catalog entry defines lrDecayPower.
  double plateau_factor = 0;
  int plateau_patience = 0;
  std::optional<PolynomialLr> polynomial;
  std::optional<EpochDecayLr> epoch_decay;  // where the catalog entry defines lrDecayEpochs
  int64_t seed = 0;
  int64_t warmup_steps = 0;   // left out of the throughput window
  int64_t train_samples = 0;  // 0: all
  int64_t max_epochs = 0;
  std::optional<double> goal;  // absent for synthetic data: throughput only
  GradientSyncOptions sync;
  torch::Device device{torch::kCPU};  // spec.device: where the model and batches live
  std::string precision = "fp32";     // the forward pass's autocast type
};

StatusOr<SgdRecipe> ReadSgdRecipe(const BenchmarkSpec& spec);

// What an evaluation measures: its mllog key, its name in progress and the summary, and which
// way is better (a goal is reached at or above it, or at or below).
struct EvalMetric {
  std::string mllog_key = "eval_accuracy";
  std::string name = "accuracy";
  bool higher_is_better = true;
};

class TrainingProblem {
 public:
  virtual ~TrainingProblem() = default;

  // Classification's accuracy unless the problem says otherwise.
  virtual EvalMetric metric() const { return {}; }

  // Builds the model before the clock starts (MLPerf counts it as initialisation), after
  // the seed is set, identically on every rank: it must not depend on the data.
  virtual torch::nn::AnyModule BuildModel() = 0;
  // Reads the data; called after run_start, since loading is part of time to accuracy.
  virtual Status Load() = 0;

  virtual int64_t train_count() const = 0;
  virtual int64_t test_count() const = 0;
  // The batches the next TrainBatch (TestBatch) calls will ask for, in order, so that a
  // problem that decodes its data can work ahead (batch_prefetcher.h). Optional.
  virtual void WillTrain(const std::vector<int64_t>& shard, int64_t batch, uint64_t seed) {
    (void)shard, (void)batch, (void)seed;
  }
  virtual void WillTest(int64_t begin, int64_t end, int64_t batch) { (void)begin, (void)end, (void)batch; }
  // Fills `inputs` and `targets` with the training samples at `indices`.
  virtual Status TrainBatch(const int64_t* indices, int64_t n, SplitMix64& rng, torch::Tensor* inputs,
                            torch::Tensor* targets) = 0;
  // Fills them with test samples begin .. begin + n.
  virtual Status TestBatch(int64_t begin, int64_t n, torch::Tensor* inputs, torch::Tensor* targets) = 0;
  // Test samples per forward pass: the whole model's activations of this many must fit.
  virtual int64_t test_batch() const { return 500; }
  // The loss and the metric summed over a batch's samples (for accuracy, the correct predictions;
  // their means over the test set are what an evaluation reports).
  virtual torch::Tensor LossSum(const torch::Tensor& outputs, const torch::Tensor& targets) = 0;
  virtual torch::Tensor MetricSum(const torch::Tensor& outputs, const torch::Tensor& targets) = 0;
  // What a problem that works ahead (WillTrain) did for training so far; none for one whose
  // TrainBatch prepares its samples in the step.
  virtual std::optional<LoadingWork> TrainingDataWork() { return std::nullopt; }
};

// The whole test set, sharded across ranks (each a contiguous slice) and summed with one
// all-reduce: the metric's and the loss's means for rank 0's model, the same on every rank. Buffers
// (batch-norm statistics) come from rank 0 first, as DDP does.
Status EvaluateSharded(Communicator& comm, torch::nn::AnyModule& model, TrainingProblem& problem, double* metric,
                       double* loss);

StatusOr<TaskOutcome> TrainSyncSgd(TaskContext& context, TrainingProblem& problem, const SgdRecipe& recipe);

}  // namespace ergobench
