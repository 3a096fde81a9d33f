#include "runner/train/multi_tensor_adam.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

std::vector<torch::Tensor> Parameters() {
  torch::manual_seed(3);
  return {torch::randn({4, 3}), torch::randn({5}), torch::randn({2, 2, 2})};
}

std::vector<torch::Tensor> Copies(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> copies;
  for (const torch::Tensor& p : params) copies.push_back(p.clone());
  return copies;
}

// Six steps of the same gradients on both optimizers' parameters: the learning rate changes
// between steps (a schedule), and the last parameter has no gradient in steps 2 and 3, so
// that its step count falls behind the others' (two buckets).
template <typename Theirs, typename Ours, typename Options>
void ExpectSameSteps(const std::vector<std::vector<torch::Tensor>>& groups, const std::vector<Options>& options) {
  std::vector<torch::optim::OptimizerParamGroup> theirs_groups, ours_groups;
  std::vector<std::vector<torch::Tensor>> theirs_params, ours_params;
  for (size_t g = 0; g < groups.size(); ++g) {
    theirs_params.push_back(Copies(groups[g]));
    ours_params.push_back(Copies(groups[g]));
    theirs_groups.emplace_back(theirs_params.back(), std::make_unique<Options>(options[g]));
    ours_groups.emplace_back(ours_params.back(), std::make_unique<Options>(options[g]));
  }
  Theirs theirs(theirs_groups, options[0]);
  Ours ours(ours_groups, options[0]);
  torch::manual_seed(11);
  for (int step = 0; step < 6; ++step) {
    for (size_t g = 0; g < groups.size(); ++g) {
      for (size_t i = 0; i < groups[g].size(); ++i) {
        const bool skipped = i == 2 && (step == 2 || step == 3);
        const torch::Tensor grad = torch::randn(groups[g][i].sizes());
        theirs_params[g][i].mutable_grad() = skipped ? torch::Tensor() : grad.clone();
        ours_params[g][i].mutable_grad() = skipped ? torch::Tensor() : grad.clone();
      }
      const double lr = options[g].lr() * (1.0 + 0.5 * step);
      static_cast<Options&>(theirs.param_groups()[g].options()).lr(lr);
      static_cast<Options&>(ours.param_groups()[g].options()).lr(lr);
    }
    theirs.step();
    ours.step();
    for (size_t g = 0; g < groups.size(); ++g) {
      for (size_t i = 0; i < groups[g].size(); ++i) {
        ASSERT_TRUE(torch::equal(ours_params[g][i], theirs_params[g][i]))
            << "step " << step << ", group " << g << ", parameter " << i << ":\n"
            << ours_params[g][i] << "\n" << theirs_params[g][i];
        ASSERT_FALSE(torch::equal(ours_params[g][i], groups[g][i]));  // it moved
      }
    }
  }
}

TEST(MultiTensorAdamTest, StepsAdamsBitsWithL2WeightDecay) {
  ExpectSameSteps<torch::optim::Adam, MultiTensorAdam>(
      {Parameters()}, std::vector<torch::optim::AdamOptions>{
                          torch::optim::AdamOptions(1e-2).betas({0.9, 0.98}).eps(1e-9).weight_decay(0.01)});
}

TEST(MultiTensorAdamTest, StepsAdamWsBitsWithDecoupledDecayByGroup) {
  std::vector<torch::Tensor> params = Parameters();
  ExpectSameSteps<torch::optim::AdamW, MultiTensorAdamW>(
      {{params[0], params[2]}, {params[1]}},
      std::vector<torch::optim::AdamWOptions>{torch::optim::AdamWOptions(6e-3).betas({0.9, 0.95}).weight_decay(0.1),
                                              torch::optim::AdamWOptions(6e-3).betas({0.9, 0.95}).weight_decay(0)});
}

TEST(MultiTensorAdamTest, KeepsLibtorchsStateForTheMemoryFigures) {
  std::vector<torch::Tensor> params = Parameters();
  MultiTensorAdam adam(params, torch::optim::AdamOptions(1e-3));
  for (torch::Tensor& p : params) p.mutable_grad() = torch::ones_like(p);
  adam.step();
  ASSERT_EQ(adam.state().size(), params.size());
  for (const auto& [key, state] : adam.state()) {
    const auto* adam_state = dynamic_cast<const torch::optim::AdamParamState*>(state.get());
    ASSERT_NE(adam_state, nullptr);
    EXPECT_EQ(adam_state->step(), 1);
    EXPECT_NEAR(adam_state->exp_avg().max().item<double>(), 0.1, 1e-7);  // (1 - beta1) * 1
  }
}

TEST(MultiTensorAdamTest, RefusesAmsgrad) {
  std::vector<torch::Tensor> params = Parameters();
  MultiTensorAdam adam(params, torch::optim::AdamOptions(1e-3).amsgrad(true));
  for (torch::Tensor& p : params) p.mutable_grad() = torch::ones_like(p);
  EXPECT_THROW(adam.step(), c10::Error);
}

}  // namespace
}  // namespace ergobench
