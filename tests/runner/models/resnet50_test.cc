#include "runner/models/resnet50.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

#include "runner/models/models.h"

namespace ergobench {
namespace {

TEST(ResNet50Test, HasTorchvisionsParameterCountAndShapes) {
  ResNet50 model(1000);
  EXPECT_EQ(ParameterCount(*model), 25557032);  // torchvision's resnet50
  EXPECT_EQ(ParameterCount(*ResNet50(10)), 25557032 - 2049 * 990);
  torch::NoGradGuard no_grad;
  model->eval();
  EXPECT_EQ(model->forward(torch::zeros({2, 3, 224, 224})).sizes(), (std::vector<int64_t>{2, 1000}));
}

// v1.5: each later stage's first block strides on its 3×3 convolution, and its shortcut
// projects with the same stride; the 1×1 convolutions around it keep stride 1.
TEST(ResNet50Test, StridesSitOnTheThreeByThreeConvolutions) {
  ResNet50 model(1000);
  int strided = 0;
  for (const auto& item : model->named_modules()) {
    auto* conv = item.value()->as<torch::nn::Conv2d>();
    if (conv == nullptr || conv->options.stride()->at(0) == 1) continue;
    ++strided;
    const std::string& name = item.key();
    EXPECT_TRUE(name == "stem" || name.ends_with(".conv2") || name.ends_with(".downsample.0")) << name;
  }
  EXPECT_EQ(strided, 1 + 3 * 2);  // the stem, then stages 2-4: 3×3 and projection
  const auto modules = model->named_modules();
  EXPECT_EQ(modules["layers.3.conv2"]->as<torch::nn::Conv2d>()->options.stride()->at(0), 2);
  EXPECT_EQ(modules["layers.3.conv1"]->as<torch::nn::Conv2d>()->options.stride()->at(0), 1);
  EXPECT_EQ(modules["layers.3.downsample.0"]->as<torch::nn::Conv2d>()->options.stride()->at(0), 2);
  EXPECT_EQ(modules["layers.4.conv2"]->as<torch::nn::Conv2d>()->options.stride()->at(0), 1);
}

TEST(ResNet50Test, EveryBottleneckStartsAsTheIdentityOfItsShortcut) {
  ResNet50 model(1000);
  int zeroed = 0;
  for (const auto& item : model->named_parameters()) {
    if (item.key().ends_with(".bn3.weight")) {
      EXPECT_EQ(item.value().abs().sum().item<float>(), 0.0f) << item.key();
      ++zeroed;
    }
  }
  EXPECT_EQ(zeroed, 16);
}

}  // namespace
}  // namespace ergobench
