// Data-parallel gradient synchronisation, shared by every training task: all gradients of a
// model in one contiguous buffer, all-reduced in one call and averaged, so that every rank
// holds the gradient of the whole global batch. Only torch translation units include this.
#pragma once

#include <vector>

#include <torch/torch.h>

#include "base/status.h"
#include "runner/tasks/phase_timer.h"

namespace ergobench {

class Communicator;

// All gradients of a model in one contiguous buffer, so that a step costs one all-reduce.
class GradientBuffer {
 public:
  explicit GradientBuffer(std::vector<torch::Tensor> params);

  float* data() { return flat_.data_ptr<float>(); }
  size_t size() const { return static_cast<size_t>(flat_.numel()); }

  // Copies each parameter's gradient in (zeros where there is none).
  void Pack();
  // Divides the all-reduced sum by `world_size` and copies it back into the gradients.
  void UnpackAveraged(int world_size);

 private:
  std::vector<torch::Tensor> params_;
  torch::Tensor flat_;
};

// Averages the gradients of `params` across ranks: pack and unpack are charged to the
// optimizer phase, the all-reduce (completed, not enqueued) to communication.
class GradientSync {
 public:
  GradientSync(Communicator& comm, std::vector<torch::Tensor> params) : comm_(comm), buffer_(std::move(params)) {}
  Status Synchronize(PhaseTimer& phases);

 private:
  Communicator& comm_;
  GradientBuffer buffer_;
};

// Rank 0's values of the float and int64 tensors (parameters, buffers), on every rank.
Status BroadcastFromRankZero(Communicator& comm, std::vector<torch::Tensor> tensors);

}  // namespace ergobench
