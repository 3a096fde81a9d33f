// The one training loop every training task runs, by MLPerf's timing rules:
//
//   initialisation, before run_start: the seed, the model (identically on every rank, then
//   rank 0's values everywhere), its gradient sync, the optimizer;
//   run_start; the data (reading it counts towards time to the goal);
//   epochs of steps, each taken by the StepDriver (step_driver.h) at the rate the task's
//   schedule gives, followed by progress and, when the task says, an evaluation, until the
//   goal or the last step;
//   run_stop; then the figures: epochs, phases, model FLOPs and MFU, memory, the task's own, the
//   parameter digest.
//
// A task says what it trains through a Trainee; the loop owns the order. The SGD tasks
// (sync_sgd_trainer.h) and the language model (tasks/language_model.cc) are its trainees. Only
// torch translation units include this header.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "api/analysis/progress_estimate.h"
#include "runner/data/batch_prefetcher.h"
#include "runner/sync/gradient_sync.h"
#include "runner/tasks/task.h"
#include "runner/train/run_clock.h"
#include "runner/train/step_driver.h"

namespace ergobench {

class MlLog;

// A model as the loop needs it: its parameters in the model's order (the digest, rank 0's
// values), the optimizer's groups of them, and, for ZeRO-3, its blocks.
struct BuiltModel {
  std::vector<torch::Tensor> parameters;
  ParameterGroups groups;
  ParameterGroups blocks;
};

// The steps the data makes: an epoch is one pass over this rank's shard.
struct TrainingPlan {
  int64_t steps_per_epoch = 0;
  int64_t steps = 0;  // in all
};

class Trainee {
 public:
  virtual ~Trainee() = default;

  virtual int64_t seed() const = 0;
  virtual int64_t throughput_warmup_steps() const = 0;  // left out of the throughput window
  virtual const GradientSyncOptions& sync_options() const = 0;
  // The target an evaluation must reach to end the run; none on synthetic data: throughput only.
  virtual std::optional<GoalTrend> goal() const = 0;
  // Where the model trains; on a GPU each phase's time includes the GPU work it queued.
  virtual torch::Device device() const { return torch::kCPU; }
  // The precision the forward runs in (fp32, bf16, fp16): the GPU's peak is the datasheet's in it.
  virtual std::string precision() const { return "fp32"; }
  // A peak FLOP/s the user gave (the peakTflops hyperparameter); 0: rank_peak.h's.
  virtual double peak_flops_override() const { return 0; }
  // Dynamic loss scaling (mixed precision's, loss_scaler.h); none by default.
  virtual std::optional<LossScalerOptions> loss_scaling() const { return std::nullopt; }
  virtual void LogRecipe(MlLog& mllog) = 0;

  // Initialisation, after the seed is set: must not depend on the data.
  virtual StatusOr<BuiltModel> BuildModel() = 0;
  // The optimizer over the gradient sync's groups (its shards of them, for ZeRO), once the sync
  // exists; a model that calls the sync around its blocks is given its hooks here.
  virtual std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(GradientSync& sync) = 0;
  // After run_start.
  virtual StatusOr<TrainingPlan> Load() = 0;

  // Each epoch starts with this: its shard, the model back in training mode.
  virtual void BeginEpoch(int64_t epoch) = 0;
  // The rate of update `update` (0 first): updates the loss scaler skipped do not count.
  virtual double LearningRate(int64_t update) const = 0;
  virtual StepWork WorkOf(int64_t step) = 0;
  // After the step: progress. True when an evaluation comes now.
  virtual bool AfterStep(int64_t step, double loss) = 0;
  virtual void EndEpoch(int64_t epoch) { (void)epoch; }
  // True when it reached the goal. `clock` tells the run's time so far, for the log.
  virtual StatusOr<bool> Evaluate(int64_t step, const RunClock& clock) = 0;

  // What the data path did for training where it works beside the steps (a prefetcher); none
  // where the step prepares its data, whose data phase is then the loading time.
  virtual std::optional<LoadingWork> TrainingDataWork() { return std::nullopt; }

  // After run_stop, with the phases reported: the task's own figures.
  virtual void Finish(const RunClock& clock, Figures* figures) { (void)clock, (void)figures; }
  virtual std::string Summary(const Figures& figures) const = 0;
};

// Runs `trainee` on `context`'s communicator, metrics and logs.
StatusOr<TaskOutcome> RunTrainingLoop(TaskContext& context, Trainee& trainee);

}  // namespace ergobench
