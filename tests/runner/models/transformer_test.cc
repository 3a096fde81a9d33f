#include "runner/models/transformer.h"

#include <cmath>

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace ergobench {
namespace {

TransformerConfig Small() {
  TransformerConfig c;
  c.vocab_size = 50;
  c.dim = 16;
  c.ffn = 32;
  c.heads = 4;
  c.encoder_layers = 2;
  c.decoder_layers = 2;
  c.max_positions = 12;
  return c;
}

int64_t Count(torch::nn::Module& module) {
  int64_t n = 0;
  for (const torch::Tensor& p : module.parameters()) n += p.numel();
  return n;
}

TEST(TransformerTest, HasTheParametersOfItsConfig) {
  const TransformerConfig c = Small();
  Transformer model(c);
  const int64_t d = c.dim, f = c.ffn;
  const int64_t attention = 4 * d * d, norm = 2 * d, ffn = d * f + f + f * d + d;
  const int64_t encoder_layer = attention + 2 * norm + ffn, decoder_layer = 2 * attention + 3 * norm + ffn;
  EXPECT_EQ(c.vocab_size * d + 2 * encoder_layer + 2 * decoder_layer + 2 * norm, Count(*model));
  // MLBench 4b's: 1024 wide, 4096 in the feed-forward layers, 6 + 6 layers, 33712 tokens.
  TransformerConfig big;
  big.vocab_size = 33712;
  Transformer mlbench(big);
  EXPECT_EQ(33712LL * 1024 + 6 * (4LL * 1024 * 1024 + 2 * 2048 + 2LL * 1024 * 4096 + 4096 + 1024) +
                6 * (8LL * 1024 * 1024 + 3 * 2048 + 2LL * 1024 * 4096 + 4096 + 1024) + 2 * 2048,
            Count(*mlbench));
}

TEST(TransformerTest, ALaterTargetTokenChangesNoEarlierOutput) {
  torch::manual_seed(1);
  Transformer model(Small());
  model->eval();
  const torch::Tensor source = torch::tensor({{5, 6, 7, 3}}, torch::kLong);
  const torch::Tensor a = model->forward(source, torch::tensor({{2, 8, 9, 10}}, torch::kLong));
  const torch::Tensor b = model->forward(source, torch::tensor({{2, 8, 9, 11}}, torch::kLong));
  EXPECT_TRUE(torch::allclose(a.slice(1, 0, 3), b.slice(1, 0, 3), 1e-5, 1e-6));
  EXPECT_FALSE(torch::allclose(a.select(1, 3), b.select(1, 3)));
}

TEST(TransformerTest, PaddingOnEitherSideChangesNothing) {
  torch::manual_seed(2);
  Transformer model(Small());
  model->eval();
  const torch::Tensor target = torch::tensor({{2, 8, 9}}, torch::kLong);
  const torch::Tensor plain = model->forward(torch::tensor({{5, 6, 7, 3}}, torch::kLong), target);
  const torch::Tensor right = model->forward(torch::tensor({{5, 6, 7, 3, 0, 0}}, torch::kLong), target);
  const torch::Tensor left = model->forward(torch::tensor({{0, 0, 5, 6, 7, 3}}, torch::kLong), target);
  EXPECT_TRUE(torch::allclose(plain, right, 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(plain, left, 1e-5, 1e-6));
}

}  // namespace
}  // namespace ergobench
