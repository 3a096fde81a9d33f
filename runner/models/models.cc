#include "runner/models/models.h"

#include <torch/nn/functional.h>
#include <torch/nn/init.h>

namespace ergobench {

namespace F = torch::nn::functional;

namespace {

torch::nn::Conv2d Conv3x3(int64_t in, int64_t out, int64_t stride) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

}  // namespace

BasicBlockImpl::BasicBlockImpl(int64_t in_planes, int64_t planes, int64_t stride)
    : conv1_(register_module("conv1", Conv3x3(in_planes, planes, stride))),
      conv2_(register_module("conv2", Conv3x3(planes, planes, 1))),
      bn1_(register_module("bn1", torch::nn::BatchNorm2d(planes))),
      bn2_(register_module("bn2", torch::nn::BatchNorm2d(planes))),
      pad_channels_(planes - in_planes),
      stride_(stride) {}

torch::Tensor BasicBlockImpl::forward(const torch::Tensor& x) {
  torch::Tensor out = torch::relu(bn1_(conv1_(x)));
  out = bn2_(conv2_(out));
  torch::Tensor shortcut = x;
  if (stride_ != 1 || pad_channels_ != 0) {
    using torch::indexing::Slice;
    using torch::indexing::None;
    shortcut = x.index({Slice(), Slice(), Slice(None, None, stride_), Slice(None, None, stride_)});
    const int64_t half = pad_channels_ / 2;
    shortcut = F::pad(shortcut, F::PadFuncOptions({0, 0, 0, 0, half, pad_channels_ - half}));
  }
  return torch::relu(out + shortcut);
}

ResNet20Impl::ResNet20Impl(int64_t classes)
    : stem_(register_module("stem", Conv3x3(3, 16, 1))),
      stem_bn_(register_module("stem_bn", torch::nn::BatchNorm2d(16))),
      stages_(register_module("stages", torch::nn::Sequential())),
      head_(register_module("head", torch::nn::Linear(64, classes))) {
  int64_t in = 16;
  for (int64_t planes : {16, 32, 64}) {
    for (int block = 0; block < 3; ++block) {
      const int64_t stride = block == 0 && planes != 16 ? 2 : 1;
      stages_->push_back(BasicBlock(in, planes, stride));
      in = planes;
    }
  }
  // He initialisation for convolutions, as in the reference implementations.
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* conv = module->as<torch::nn::Conv2d>()) {
      torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
    }
  }
}

torch::Tensor ResNet20Impl::forward(torch::Tensor x) {
  x = torch::relu(stem_bn_(stem_(x)));
  x = stages_->forward(x);
  x = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1)).flatten(1);
  return head_(x);
}

SmallCnnImpl::SmallCnnImpl(int64_t classes)
    : conv1_(register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 16, 3).padding(1)))),
      conv2_(register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 3).padding(1)))),
      head_(register_module("head", torch::nn::Linear(32 * 7 * 7, classes))) {}

torch::Tensor SmallCnnImpl::forward(torch::Tensor x) {
  x = F::max_pool2d(torch::relu(conv1_(x)), F::MaxPool2dFuncOptions(2));  // 16×14×14
  x = F::max_pool2d(torch::relu(conv2_(x)), F::MaxPool2dFuncOptions(2));  // 32×7×7
  return head_(x.flatten(1));
}

torch::nn::AnyModule MakeImageModel(const std::string& name, int64_t classes) {
  if (name == "resnet20") return torch::nn::AnyModule(ResNet20(classes));
  return torch::nn::AnyModule(SmallCnn(classes));
}

int64_t ParameterCount(torch::nn::Module& module) {
  int64_t count = 0;
  for (const torch::Tensor& p : module.parameters()) count += p.numel();
  return count;
}

}  // namespace ergobench
