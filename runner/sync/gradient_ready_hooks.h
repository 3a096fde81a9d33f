// Calls back as each parameter's gradient is ready: after the parameter's gradient
// accumulator has added a backward's gradient to .grad (DDP's place for its hook), so that
// accumulated micro-batches are all in it. Used by the overlap and sharded strategies. The
// hooks go with this object. Only torch translation units include this.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <torch/torch.h>

namespace ergobench {

class GradientReadyHooks {
 public:
  // `on_ready(i)` for params[i]; a parameter that needs no gradient gets no hook. It may run
  // on one of autograd's threads.
  GradientReadyHooks(const std::vector<torch::Tensor>& params, std::function<void(size_t)> on_ready);
  ~GradientReadyHooks();
  GradientReadyHooks(const GradientReadyHooks&) = delete;
  GradientReadyHooks& operator=(const GradientReadyHooks&) = delete;

 private:
  std::function<void(size_t)> on_ready_;
  // Held so that each parameter keeps one accumulator, and with it the hook, across steps.
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<uintptr_t> keys_;
};

}  // namespace ergobench
