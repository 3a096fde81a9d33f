#include "runner/models/models.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

TEST(ModelsTest, ResNet20HasTheOptionAParameterCount) {
  ResNet20 model(10);
  // He et al.'s CIFAR ResNet-20 with identity/zero-pad shortcuts: 269,722 (0.27M in the paper).
  EXPECT_EQ(ParameterCount(*model), 269722);
  torch::Tensor out = model->forward(torch::zeros({2, 3, 32, 32}));
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 10}));
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
