#include "runner/models/models.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

#include "runner/train/flop_counter.h"

namespace ergobench {
namespace {

TEST(ModelsTest, ResNet20HasTheOptionAParameterCount) {
  ResNet20 model(10);
  // He et al.'s CIFAR ResNet-20 with identity/zero-pad shortcuts: 269,722 (0.27M in the paper).
  EXPECT_EQ(ParameterCount(*model), 269722);
  torch::Tensor out = model->forward(torch::zeros({2, 3, 32, 32}));
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 10}));
}

// Multiply-adds by hand, layer by layer. ResNet-20 on 32x32: the stem 16 x 1024 outputs of 27;
// stage 1, six 16 -> 16 convolutions of 16 x 1024 x 144; stage 2, one 16 -> 32 of stride 2 of
// 32 x 256 x 144 and five 32 -> 32 of 32 x 256 x 288; stage 3 likewise at 64 x 64; the head 640:
// 40,551,040 (the paper's "41M"). Padding the shortcut and batch norm are not matrix products.
TEST(ModelsTest, ResNet20sForwardIsItsHandCountOfMultiplyAdds) {
  ResNet20 model(10);
  FlopCounter counter;
  model->forward(torch::zeros({2, 3, 32, 32}));
  const double macs = 442368 + 6 * 2359296 + 1179648 + 5 * 2359296 + 1179648 + 5 * 2359296 + 640;
  EXPECT_EQ(macs, 40551040);
  EXPECT_EQ(counter.flops(), 2 * 2 * macs);  // two samples, two FLOPs a multiply-add
}

// The fmnist model on 28x28: conv1 16 x 784 outputs of 9, conv2 32 x 196 of 144, the head
// 1568 x 10: 1,031,744 multiply-adds.
TEST(ModelsTest, SmallCnnsForwardIsItsHandCountOfMultiplyAdds) {
  SmallCnn model(10);
  FlopCounter counter;
  model->forward(torch::zeros({1, 1, 28, 28}));
  EXPECT_EQ(counter.flops(), 2 * (16 * 784 * 9 + 32 * 196 * 144 + 1568 * 10));
  EXPECT_EQ(counter.flops(), 2063488);
}

TEST(ModelsTest, SmallCnnShapes) {
  SmallCnn model(10);
  EXPECT_EQ(ParameterCount(*model), 16 * 9 + 16 + 32 * 16 * 9 + 32 + 32 * 7 * 7 * 10 + 10);
  EXPECT_EQ(model->forward(torch::zeros({4, 1, 28, 28})).sizes(), (std::vector<int64_t>{4, 10}));
}

TEST(ModelsTest, SameSeedSameWeights) {
  torch::manual_seed(7);
  ResNet20 a(10);
  torch::manual_seed(7);
  ResNet20 b(10);
  auto pa = a->parameters();
  auto pb = b->parameters();
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(torch::equal(pa[i], pb[i])) << i;
}

}  // namespace
}  // namespace ergobench
