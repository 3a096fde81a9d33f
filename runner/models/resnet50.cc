#include "runner/models/resnet50.h"

#include <torch/nn/functional.h>
#include <torch/nn/init.h>

namespace ergobench {

namespace F = torch::nn::functional;

namespace {

torch::nn::Conv2d Conv(int64_t in, int64_t out, int64_t kernel, int64_t stride) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(false));
}

}  // namespace

BottleneckImpl::BottleneckImpl(int64_t in_channels, int64_t planes, int64_t stride)
    : conv1_(register_module("conv1", Conv(in_channels, planes, 1, 1))),
      conv2_(register_module("conv2", Conv(planes, planes, 3, stride))),
      conv3_(register_module("conv3", Conv(planes, 4 * planes, 1, 1))),
      bn1_(register_module("bn1", torch::nn::BatchNorm2d(planes))),
      bn2_(register_module("bn2", torch::nn::BatchNorm2d(planes))),
      bn3_(register_module("bn3", torch::nn::BatchNorm2d(4 * planes))) {
  if (stride != 1 || in_channels != 4 * planes) {
    downsample_ = register_module(
        "downsample", torch::nn::Sequential(Conv(in_channels, 4 * planes, 1, stride), torch::nn::BatchNorm2d(4 * planes)));
  }
  torch::nn::init::zeros_(bn3_->weight);
}

torch::Tensor BottleneckImpl::forward(const torch::Tensor& x) {
  torch::Tensor out = torch::relu(bn1_(conv1_(x)));
  out = torch::relu(bn2_(conv2_(out)));
  out = bn3_(conv3_(out));
  return torch::relu(out + (downsample_ ? downsample_->forward(x) : x));
}

ResNet50Impl::ResNet50Impl(int64_t classes)
    : stem_(register_module("stem", Conv(3, 64, 7, 2))),
      stem_bn_(register_module("stem_bn", torch::nn::BatchNorm2d(64))),
      layers_(register_module("layers", torch::nn::Sequential())),
      head_(register_module("head", torch::nn::Linear(2048, classes))) {
  int64_t in = 64;
  const int64_t blocks[] = {3, 4, 6, 3};
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t planes = int64_t{64} << stage;
    for (int64_t block = 0; block < blocks[stage]; ++block) {
      layers_->push_back(Bottleneck(in, planes, block == 0 && stage > 0 ? 2 : 1));
      in = 4 * planes;
    }
  }
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* conv = module->as<torch::nn::Conv2d>()) {
      torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
    }
  }
}

torch::Tensor ResNet50Impl::forward(torch::Tensor x) {
  x = torch::relu(stem_bn_(stem_(x)));
  x = F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1));
  x = layers_->forward(x);
  x = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1)).flatten(1);
  return head_(x);
}

}  // namespace ergobench
