// The image models of the training tasks, as libtorch modules. Only torch translation
// units include this header (it pulls in torch/nn), so torch stays out of the rest.
//
// ResNet-20 is He et al. 2015's CIFAR network: a 3×3 stem, then 3 stages of 3 basic
// blocks at 16, 32 and 64 channels. Shortcuts that change shape use option A of the paper
// (identity with stride-2 subsampling and zero-padded channels), the choice He et al. made
// for CIFAR and the one MLBench's reference follows: 269,722 parameters. Option B's 1×1
// projections would give 272,474.
#pragma once

#include <string>

#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

namespace ergobench {

class BasicBlockImpl : public torch::nn::Module {
 public:
  BasicBlockImpl(int64_t in_planes, int64_t planes, int64_t stride);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
  int64_t pad_channels_ = 0;  // option A: channels added by zero padding
  int64_t stride_ = 1;
};
TORCH_MODULE(BasicBlock);

class ResNet20Impl : public torch::nn::Module {
 public:
  explicit ResNet20Impl(int64_t classes = 10);
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Conv2d stem_{nullptr};
  torch::nn::BatchNorm2d stem_bn_{nullptr};
  torch::nn::Sequential stages_{nullptr};
  torch::nn::Linear head_{nullptr};
};
TORCH_MODULE(ResNet20);

// Two 3×3 conv layers with pooling and a linear head: 1×28×28 → 10 classes.
class SmallCnnImpl : public torch::nn::Module {
 public:
  explicit SmallCnnImpl(int64_t classes = 10);
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::Linear head_{nullptr};
};
TORCH_MODULE(SmallCnn);

// "resnet20" or "small_cnn", built for `classes`.
torch::nn::AnyModule MakeImageModel(const std::string& name, int64_t classes);

int64_t ParameterCount(torch::nn::Module& module);

}  // namespace ergobench
