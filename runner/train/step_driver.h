// The one training step every training task takes, synchronous data-parallel SGD as DDP does
// it: the task says how to load a micro-batch and compute its loss, and may act on the averaged
// gradients before the update (clipping); the driver owns the rest:
//
//   every kAgreeEvery steps, agree with the other ranks to go on (a stop signal ends all alike);
//   zero the gradients; for each micro-batch: data → forward → backward (losses summed;
//   backward may start averaging: gradientSync overlap and sharded);
//   average the gradients across ranks; with a loss scaler, unscale them and skip the update
//   where their norm is inf or NaN; the task's hook; the optimizer's step; gather the
//   updated parameters (gradientSync sharded);
//   the step's time and samples into the run clock (the throughput window) and the metrics;
//   the most tensor bytes live during the step into the run's peak (memory_accounting.h).
//
// Each part is charged to its phase (api/analysis/training_phases.h). Only torch units include this.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include <torch/torch.h>

#include "base/status.h"
#include "runner/metrics/tensor_memory.h"
#include "runner/sync/gradient_sync.h"
#include "runner/train/loss_scaler.h"
#include "runner/train/phase_timer.h"
#include "runner/train/run_clock.h"

namespace ergobench {

class Communicator;

// What one step trains on.
struct StepWork {
  int64_t micro_batches = 1;  // gradient accumulation
  int64_t samples = 0;        // this rank's samples in the step, for throughput
  std::function<Status(int64_t micro)> load;                 // fills the task's input tensors
  std::function<torch::Tensor(int64_t micro)> loss;          // forward: the loss backward runs on
  std::function<Status()> before_update;                     // optional, on averaged gradients
};

class StepDriver {
 public:
  // Ranks check for a stop this often: rarely enough to cost nothing, often enough to stop fast.
  static constexpr int64_t kAgreeEvery = 25;

  // `memory` may be null: no peak is kept.
  StepDriver(Communicator& comm, RunClock& clock, PhaseTimer& phases, GradientSync& sync,
             torch::optim::Optimizer& optimizer, TensorMemory* memory = nullptr)
      : comm_(comm), clock_(clock), phases_(phases), sync_(sync), optimizer_(optimizer), memory_(memory) {}

  // Takes one step. Ranks agree to go on first when `step` is a multiple of kAgreeEvery; every
  // rank must count steps alike (the training loop counts within each epoch). Returns the summed loss of the micro-batches, or Cancelled when the ranks
  // agreed to stop, or the communicator's error.
  StatusOr<double> Step(int64_t step, const StepWork& work);

  // Mixed precision's dynamic loss scaling: each backward runs on the loss times the scale,
  // the averaged gradients are divided by it, and an update whose gradient norm is then inf
  // or NaN is skipped (the scaler's Update). Null: none.
  void set_loss_scaler(DynamicLossScaler* scaler) { scaler_ = scaler; }
  // The updates applied so far: the steps less those the loss scaler skipped.
  int64_t updates() const { return updates_; }

  // The most tensor bytes live (and reserved, on a GPU) during any step so far; absent without
  // `memory` or a step.
  const std::optional<TensorPeak>& tensor_peak() const { return tensor_peak_; }

 private:
  // The averaged gradients divided by the step's `scale`; whether the scaler applies the update.
  Status Unscale(double scale, bool* apply);

  Communicator& comm_;
  RunClock& clock_;
  PhaseTimer& phases_;
  GradientSync& sync_;
  torch::optim::Optimizer& optimizer_;
  TensorMemory* memory_;
  DynamicLossScaler* scaler_ = nullptr;
  int64_t updates_ = 0;
  std::optional<TensorPeak> tensor_peak_;
};

}  // namespace ergobench
