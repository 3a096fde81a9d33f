// Data-parallel gradient synchronisation, shared by every training task: after backward every
// rank holds the average of all ranks' gradients, by the strategy
// spec.hyperparameters.gradientSync names:
//   flat     all gradients in one buffer, one all-reduce after backward (MLBench's way);
//   overlap  buckets of about bucketMiB, all-reduced on a thread of their own as backward
//            makes them ready, waited for before the update (PyTorch DDP's way);
//   sharded  ZeRO's sharded data parallelism (sharded_gradient_sync.h): each rank keeps the
//            optimizer state (zeroStage 1), the averaged gradients (2) and between uses the
//            parameters (3) of its 1/k of the model, and steps that shard.
// The step waits only for what backward did not hide: that wait is the communication phase;
// the collectives' whole time is reported apart (Figures::collective_seconds). Only torch
// translation units include this.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "base/status.h"
#include "runner/train/phase_timer.h"

namespace ergobench {

class BlockHooks;
class Communicator;
class RecipeReader;

struct GradientSyncOptions {
  std::string strategy = "flat";  // flat | overlap | sharded
  double bucket_mib = 25;         // overlap's bucket size; DDP's default
  int zero_stage = 1;             // sharded: 1 optimizer state, 2 and the gradients, 3 and the parameters
};

// The model's parameters in the groups the task's optimizer treats alike (decay or not).
using ParameterGroups = std::vector<std::vector<torch::Tensor>>;

// gradientSync and bucketMiB from the defaulted hyperparameters; problems go to `read`.
GradientSyncOptions ReadGradientSyncOptions(RecipeReader& read);

// A step calls, in order: StartStep; per micro-batch BeforeBackward and backward; Synchronize;
// optionally ClipGradNorm; the optimizer's step on OptimizerGroups; AfterUpdate.
class GradientSync {
 public:
  virtual ~GradientSync() = default;
  // What the task's optimizer steps, group by group as given to MakeGradientSync: the
  // parameters themselves, or this rank's shards of them.
  virtual ParameterGroups OptimizerGroups() const = 0;
  // Before a step's first forward. Stage 3 charges what it waits for in the step's forward and
  // backward (its gathers) to `phases`, as communication.
  virtual void StartStep(PhaseTimer& /*phases*/) {}
  // Before each backward of a step; `last` when it completes the step's gradients (the last
  // micro-batch), the moment overlap starts all-reducing them.
  virtual void BeforeBackward(bool last) = 0;
  // After the step's backward passes: averages the gradients across ranks. The wait for
  // collectives is charged to communication, packing to the optimizer, and every collective's
  // whole time to phases.AddCollectiveSeconds.
  virtual Status Synchronize(PhaseTimer& phases) = 0;
  // The L2 norm of the averaged gradients over all parameters (every rank's shards), the same
  // on every rank: inf or NaN where an element is.
  virtual StatusOr<double> GradNorm() = 0;
  // Multiplies the averaged gradients (this rank's shards of them) by `factor`.
  virtual void ScaleGradients(double factor) = 0;
  // Scales the averaged gradients so that their L2 norm over all parameters is at most
  // `max_norm`, as torch::nn::utils::clip_grad_norm_.
  Status ClipGradNorm(double max_norm);
  // After the optimizer's step; sharded all-gathers the updated parameters here.
  virtual Status AfterUpdate(PhaseTimer& /*phases*/) { return Status::Ok(); }
  // The bytes of gradient storage this rank keeps through the update: the model's .grad and
  // the strategy's buffers (memory_accounting.h).
  virtual int64_t GradientBytes() const = 0;
  // The bytes of parameters this rank keeps between steps.
  virtual int64_t ParameterBytes() const = 0;
  // Stage 3 lets parameters go between uses; this makes every one whole again, until the next
  // step (for the final parameter digest). Others hold them whole already.
  virtual Status GatherParameters() { return Status::Ok(); }
  // What a model's forward calls around its blocks (models/block_hooks.h); null where the
  // strategy needs none.
  virtual BlockHooks* block_hooks() { return nullptr; }
};

// Flat and overlap: every rank holds every parameter, and the optimizer steps the model's own.
class ReplicatedGradientSync : public GradientSync {
 public:
  explicit ReplicatedGradientSync(ParameterGroups groups) : groups_(std::move(groups)) {}
  ParameterGroups OptimizerGroups() const override { return groups_; }
  StatusOr<double> GradNorm() override;
  void ScaleGradients(double factor) override;
  int64_t ParameterBytes() const override;

 protected:
  std::vector<torch::Tensor> AllParameters() const;
  // The model's .grad that are defined.
  std::vector<torch::Tensor> Gradients() const;
  // Of the model's .grad that are defined.
  int64_t ModelGradientBytes() const;

 private:
  ParameterGroups groups_;
};

// The strategy `options` names over the model's parameters; an error naming
// spec.hyperparameters.gradientSync where this communicator cannot run it. Stage 3 also
// needs the model's parameters block by block (`blocks`, as Gpt::ParameterBlocks gives them),
// and the model's forward to call block_hooks().
StatusOr<std::unique_ptr<GradientSync>> MakeGradientSync(const GradientSyncOptions& options, Communicator& comm,
                                                         ParameterGroups groups, ParameterGroups blocks = {});

// All gradients of a model in one contiguous buffer, so that a step costs one all-reduce.
class GradientBuffer {
 public:
  explicit GradientBuffer(std::vector<torch::Tensor> params);

  float* data() { return flat_.data_ptr<float>(); }
  size_t size() const { return static_cast<size_t>(flat_.numel()); }
  int64_t bytes() const { return flat_.numel() * static_cast<int64_t>(sizeof(float)); }

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
