#include "runner/sync/gradient_ready_hooks.h"

#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>

namespace ergobench {

GradientReadyHooks::GradientReadyHooks(const std::vector<torch::Tensor>& params, std::function<void(size_t)> on_ready)
    : on_ready_(std::move(on_ready)) {
  for (size_t i = 0; i < params.size(); ++i) {
    std::shared_ptr<torch::autograd::Node> accumulator;
    uintptr_t key = 0;
    if (params[i].requires_grad()) {
      accumulator = torch::autograd::impl::grad_accumulator(params[i]);
      key = accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
          [this, i](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
            on_ready_(i);
            return outputs;
          }));
    }
    accumulators_.push_back(std::move(accumulator));
    keys_.push_back(key);
  }
}

// A graph still alive could otherwise call into a dead object.
GradientReadyHooks::~GradientReadyHooks() {
  for (size_t i = 0; i < accumulators_.size(); ++i) {
    if (accumulators_[i]) accumulators_[i]->del_post_hook(keys_[i]);
  }
}

}  // namespace ergobench
