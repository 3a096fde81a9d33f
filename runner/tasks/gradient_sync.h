// Data-parallel gradient synchronisation, shared by every training task: after backward every
// rank holds the average of all ranks' gradients, by the strategy
// spec.hyperparameters.gradientSync names:
//   flat     all gradients in one buffer, one all-reduce after backward (MLBench's way);
//   overlap  buckets of about bucketMiB, all-reduced on a thread of their own as backward
//            makes them ready, waited for before the update (PyTorch DDP's way).
// The step waits only for what backward did not hide: that wait is the communication phase;
// the collectives' whole time is reported apart (Figures::collective_seconds). Only torch
// translation units include this.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "base/status.h"
#include "runner/tasks/phase_timer.h"

namespace ergobench {

class Communicator;
class RecipeReader;

struct GradientSyncOptions {
  std::string strategy = "flat";  // flat | overlap
  double bucket_mib = 25;         // overlap's bucket size; DDP's default
};

// gradientSync and bucketMiB from the defaulted hyperparameters; problems go to `read`.
GradientSyncOptions ReadGradientSyncOptions(RecipeReader& read);

class GradientSync {
 public:
  virtual ~GradientSync() = default;
  // Before each backward of a step; `last` when it completes the step's gradients (the last
  // micro-batch), the moment overlap starts all-reducing them.
  virtual void BeforeBackward(bool last) = 0;
  // After the step's backward passes: averages the gradients across ranks. The wait for
  // collectives is charged to communication, packing to the optimizer, and every collective's
  // whole time to phases.AddCollectiveSeconds.
  virtual Status Synchronize(PhaseTimer& phases) = 0;
};

// The strategy `options` names over the model's parameters; an error naming
// spec.hyperparameters.gradientSync where this communicator cannot run it.
StatusOr<std::unique_ptr<GradientSync>> MakeGradientSync(const GradientSyncOptions& options, Communicator& comm,
                                                         std::vector<torch::Tensor> params);

// All gradients of a model in one contiguous buffer, so that a step costs one all-reduce.
class GradientBuffer {
 public:
  explicit GradientBuffer(std::vector<torch::Tensor> params);

  float* data() { return flat_.data_ptr<float>(); }
  size_t size() const { return static_cast<size_t>(flat_.numel()); }

  // Copies each parameter's gradient in (zeros where there is none).
  void Pack();
  // The same for parameter `index` alone (in the order given), as its gradient becomes ready.
  void PackOne(size_t index);
  // Divides the all-reduced sum by `world_size` and copies it back into the gradients.
  void UnpackAveraged(int world_size);

 private:
  std::vector<torch::Tensor> params_;
  std::vector<int64_t> offsets_;  // of each parameter in flat_
  torch::Tensor flat_;
};

// Rank 0's values of the float and int64 tensors (parameters, buffers), on every rank.
Status BroadcastFromRankZero(Communicator& comm, std::vector<torch::Tensor> tensors);

}  // namespace ergobench
