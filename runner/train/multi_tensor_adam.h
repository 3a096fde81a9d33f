// Adam and AdamW whose step updates all the parameters of a group at once, with torch's
// multi-tensor (_foreach) kernels, as PyTorch's Python optimizers do by default on GPUs
// (foreach=True). libtorch's C++ Adam and AdamW loop over the parameters, a handful of kernels
// each: on an H200, Transformer-big spent 29% of its step in that loop against PyTorch's 0.83
// of its speed, and 12% with one flat tensor to step (bench/RESULTS.md, 2026-11-27).
//
// The arithmetic is libtorch's, operation for operation, so a CPU run steps to the same bits
// (tests/runner/train/multi_tensor_adam_test.cc); the state is libtorch's AdamParamState and
// AdamWParamState. amsgrad is not supported: no task uses it, and step() refuses it.
// Only torch translation units include this.
#pragma once

#include <torch/torch.h>

namespace ergobench {

class MultiTensorAdam : public torch::optim::Adam {
 public:
  using torch::optim::Adam::Adam;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

class MultiTensorAdamW : public torch::optim::AdamW {
 public:
  using torch::optim::AdamW::AdamW;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace ergobench
