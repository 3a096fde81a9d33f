// ResNet-50 v1.5, the network of CARAML's computer-vision benchmark and of MLPerf's image
// classification: He et al. 2015's ImageNet ResNet-50, with the stride-2 of each stage's first
// bottleneck on its 3×3 convolution rather than its first 1×1 (NVIDIA's "v1.5", torchvision's
// resnet50): 25,557,032 parameters with 1000 classes. Shortcuts that change shape are 1×1
// projections with batch norm. The last batch norm of every bottleneck starts at zero (Goyal et
// al. 2017, MLPerf's reference), so each block starts as the identity. Only torch units include
// this header.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

namespace ergobench {

class BottleneckImpl : public torch::nn::Module {
 public:
  // Expands `planes` four times; `stride` on the 3×3 convolution.
  BottleneckImpl(int64_t in_channels, int64_t planes, int64_t stride);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr}, conv3_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr}, bn3_{nullptr};
  torch::nn::Sequential downsample_{nullptr};  // empty when the shape is kept
};
TORCH_MODULE(Bottleneck);

class ResNet50Impl : public torch::nn::Module {
 public:
  explicit ResNet50Impl(int64_t classes = 1000);
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Conv2d stem_{nullptr};
  torch::nn::BatchNorm2d stem_bn_{nullptr};
  torch::nn::Sequential layers_{nullptr};
  torch::nn::Linear head_{nullptr};
};
TORCH_MODULE(ResNet50);

}  // namespace ergobench
