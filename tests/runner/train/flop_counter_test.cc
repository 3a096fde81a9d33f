#include "runner/train/flop_counter.h"

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

namespace ergobench {
namespace {

// A small model counted by hand: Conv2d(1 -> 4, 3x3, padding 1) on 8x8 is 4 x 64 outputs of
// 9 multiply-adds, 2 x 2304 = 4608 FLOPs a sample; Linear(256 -> 10) 2 x 2560 = 5120. The
// ReLU, the flattening and the bias are not counted.
TEST(FlopCounterTest, ASmallModelsForwardIsItsHandCount) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(1, 4, 3).padding(1));
  torch::nn::Linear linear(256, 10);
  const torch::Tensor x = torch::randn({2, 1, 8, 8});
  FlopCounter counter;
  linear(torch::relu(conv(x)).flatten(1));
  EXPECT_EQ(counter.flops(), 2 * (4608 + 5120));
}

TEST(FlopCounterTest, MatrixProductsOfEveryShape) {
  FlopCounter counter;
  torch::mm(torch::ones({4, 5}), torch::ones({5, 6}));  // 2 x 4 x 5 x 6 = 240
  EXPECT_EQ(counter.flops(), 240);
  torch::matmul(torch::ones({3, 4, 5}), torch::ones({3, 5, 6}));  // batched: 3 x 240
  EXPECT_EQ(counter.flops(), 240 + 720);
  torch::mv(torch::ones({4, 5}), torch::ones({5}));  // 2 x 20
  EXPECT_EQ(counter.flops(), 240 + 720 + 40);
}

// Autocast's wrapper calls the op again in the lower precision: counted once.
TEST(FlopCounterTest, AnOpThatCallsItselfUnderAutocastCountsOnce) {
  at::autocast::set_cpu_enabled(true);
  {
    FlopCounter counter;
    torch::mm(torch::ones({4, 5}), torch::ones({5, 6}));
    EXPECT_EQ(counter.flops(), 240);
  }
  at::autocast::set_cpu_enabled(false);
}

TEST(FlopCounterTest, EachCounterStartsFromZero) {
  { FlopCounter first; torch::mm(torch::ones({4, 5}), torch::ones({5, 6})); }
  torch::mm(torch::ones({4, 5}), torch::ones({5, 6}));  // with no counter: nothing
  FlopCounter second;
  EXPECT_EQ(second.flops(), 0);
}

TEST(FlopCounterTest, ConvolutionsStridedGroupedTransposedAndThreeDimensional) {
  // 9^3 by 3^3, stride 2: 4^3 outputs x 4 channels, each 2 x 27 multiply-adds: 2 x 4 x 64 x 54.
  EXPECT_EQ(ConvolutionFlops({1, 2, 9, 9, 9}, {4, 2, 3, 3, 3}, {2}, {0}, {1}, false, 1), 27648);
  // Two groups of one input channel: 4 x 64 outputs, each 9 multiply-adds.
  EXPECT_EQ(ConvolutionFlops({1, 2, 8, 8}, {4, 1, 3, 3}, {1}, {1}, {1}, false, 2), 4608);
  // Transposed, 4 -> 2 channels: each of 64 inputs spreads 2 x 9 multiply-adds.
  EXPECT_EQ(ConvolutionFlops({1, 4, 4, 4}, {4, 2, 3, 3}, {2}, {0}, {1}, true, 1), 2304);
  // What torch's own Conv3d dispatches counts the same.
  torch::nn::Conv3d conv(torch::nn::Conv3dOptions(2, 4, 3).stride(2));
  FlopCounter counter;
  conv(torch::randn({1, 2, 9, 9, 9}));
  EXPECT_EQ(counter.flops(), 27648);
}

}  // namespace
}  // namespace ergobench
