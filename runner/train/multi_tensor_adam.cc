#include "runner/train/multi_tensor_adam.h"

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>

namespace ergobench {
namespace {

// A parameter's key in the optimizer's state: libtorch 1.13 keys by its TensorImpl's address
// printed (c10::guts::to_string), later versions by the address itself.
template <typename Key>
Key StateKey(const torch::Tensor& p) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream key;
    key << p.unsafeGetTensorImpl();
    return key.str();
  } else {
    return p.unsafeGetTensorImpl();
  }
}

// Parameters that take the same step: their bias corrections are alike.
struct Bucket {
  std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
};

// libtorch's Adam (decoupled: AdamW) arithmetic, one multi-tensor operation where it takes one
// operation a parameter.
template <typename Options>
void Update(Bucket& b, const Options& options, int64_t step, bool decoupled) {
  const double beta1 = std::get<0>(options.betas());
  const double beta2 = std::get<1>(options.betas());
  const double bias_correction1 = 1 - std::pow(beta1, static_cast<double>(step));
  const double bias_correction2 = 1 - std::pow(beta2, static_cast<double>(step));
  std::vector<torch::Tensor> grads = b.grads;
  if (options.weight_decay() != 0) {
    if (decoupled) {
      at::_foreach_mul_(b.params, at::Scalar(1 - options.lr() * options.weight_decay()));
    } else {
      grads = at::_foreach_add(b.grads, b.params, at::Scalar(options.weight_decay()));
    }
  }
  at::_foreach_mul_(b.exp_avgs, at::Scalar(beta1));
  at::_foreach_add_(b.exp_avgs, grads, at::Scalar(1 - beta1));
  at::_foreach_mul_(b.exp_avg_sqs, at::Scalar(beta2));
  at::_foreach_addcmul_(b.exp_avg_sqs, grads, grads, at::Scalar(1 - beta2));
  std::vector<torch::Tensor> denoms = at::_foreach_sqrt(b.exp_avg_sqs);
  at::_foreach_div_(denoms, at::Scalar(std::sqrt(bias_correction2)));
  at::_foreach_add_(denoms, at::Scalar(options.eps()));
  at::_foreach_addcdiv_(b.params, b.exp_avgs, denoms, at::Scalar(-options.lr() / bias_correction1));
}

template <typename Options, typename State, typename StateMap>
void MultiTensorStep(std::vector<torch::optim::OptimizerParamGroup>& groups, StateMap& state, bool decoupled) {
  torch::NoGradGuard no_grad;
  for (torch::optim::OptimizerParamGroup& group : groups) {
    const auto& options = static_cast<const Options&>(group.options());
    TORCH_CHECK(!options.amsgrad(), "MultiTensorAdam: amsgrad is not supported");
    std::map<int64_t, Bucket> buckets;  // almost always one: a parameter without a gradient skips a step
    for (torch::Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      TORCH_CHECK(!p.grad().is_sparse(), "MultiTensorAdam: sparse gradients are not supported");
      std::unique_ptr<torch::optim::OptimizerParamState>& slot = state[StateKey<typename StateMap::key_type>(p)];
      if (!slot) {
        auto fresh = std::make_unique<State>();
        fresh->step(0);
        fresh->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        slot = std::move(fresh);
      }
      auto& s = static_cast<State&>(*slot);
      s.step(s.step() + 1);
      Bucket& b = buckets[s.step()];
      b.params.push_back(p);
      b.grads.push_back(p.grad());
      b.exp_avgs.push_back(s.exp_avg());
      b.exp_avg_sqs.push_back(s.exp_avg_sq());
    }
    for (auto& [step, bucket] : buckets) Update(bucket, options, step, decoupled);
  }
}

// The loss of a closure, as torch's optimizers take it (with gradients); none without one.
torch::Tensor EvaluateClosure(const torch::optim::Optimizer::LossClosure& closure) {
  if (!closure) return {};
  const torch::AutoGradMode enable_grad(true);
  return closure();
}

}  // namespace

torch::Tensor MultiTensorAdam::step(LossClosure closure) {
  torch::Tensor loss = EvaluateClosure(closure);
  MultiTensorStep<torch::optim::AdamOptions, torch::optim::AdamParamState>(param_groups_, state_, false);
  return loss;
}

torch::Tensor MultiTensorAdamW::step(LossClosure closure) {
  torch::Tensor loss = EvaluateClosure(closure);
  MultiTensorStep<torch::optim::AdamWOptions, torch::optim::AdamWParamState>(param_groups_, state_, true);
  return loss;
}

}  // namespace ergobench
