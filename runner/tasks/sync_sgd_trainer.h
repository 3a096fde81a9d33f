// Synchronous data-parallel SGD with the MLBench learning-rate schedule, timed by MLPerf's
// rules, for the image and linear tasks. A task supplies a TrainingProblem (its data, model and
// loss); the trainer owns the epochs, sharding, evaluation, MLLOG, progress and the figures of
// the result, and takes each step with the StepDriver that the language model shares
// (step_driver.h). Only torch translation units include this header.
#pragma once

#include <optional>
#include <string>

#include <torch/torch.h>

#include "runner/data/shard.h"
#include "runner/tasks/gradient_sync.h"
#include "runner/tasks/task.h"

namespace ergobench {

class Communicator;

// The hyperparameters every training task shares, read from spec.hyperparameters.
struct SgdRecipe {
  int64_t batch = 0;
  double lr = 0;
  double momentum = 0;
  bool nesterov = false;
  double weight_decay = 0;
  double plateau_factor = 0;
  int plateau_patience = 0;
  int64_t seed = 0;
  int64_t warmup_steps = 0;   // left out of the throughput window
  int64_t train_samples = 0;  // 0: all
  int64_t max_epochs = 0;
  std::optional<double> goal;  // absent for synthetic data: throughput only
  GradientSyncOptions sync;
};

StatusOr<SgdRecipe> ReadSgdRecipe(const BenchmarkSpec& spec);

class TrainingProblem {
 public:
  virtual ~TrainingProblem() = default;

  // Builds the model before the clock starts (MLPerf counts it as initialisation), after
  // the seed is set, identically on every rank: it must not depend on the data.
  virtual torch::nn::AnyModule BuildModel() = 0;
  // Reads the data; called after run_start, since loading is part of time to accuracy.
  virtual Status Load() = 0;

  virtual int64_t train_count() const = 0;
  virtual int64_t test_count() const = 0;
  // Fills `inputs` and `targets` with the training samples at `indices`.
  virtual void TrainBatch(const int64_t* indices, int64_t n, SplitMix64& rng, torch::Tensor* inputs,
                          torch::Tensor* targets) = 0;
  // Fills them with test samples begin .. begin + n.
  virtual void TestBatch(int64_t begin, int64_t n, torch::Tensor* inputs, torch::Tensor* targets) = 0;
  // Summed loss and number of correct predictions over a batch.
  virtual torch::Tensor LossSum(const torch::Tensor& outputs, const torch::Tensor& targets) = 0;
  virtual torch::Tensor Correct(const torch::Tensor& outputs, const torch::Tensor& targets) = 0;
};

// The whole test set, sharded across ranks (each a contiguous slice) and summed with one
// all-reduce: accuracy and mean loss of rank 0's model, the same on every rank. Buffers
// (batch-norm statistics) come from rank 0 first, as DDP does.
Status EvaluateSharded(Communicator& comm, torch::nn::AnyModule& model, TrainingProblem& problem, double* accuracy,
                       double* loss);

StatusOr<TaskOutcome> TrainSyncSgd(TaskContext& context, TrainingProblem& problem, const SgdRecipe& recipe);

}  // namespace ergobench
