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

TEST(TransformerTest, LabelSmoothedLossByHand) {
  // Two tokens over 3 classes; the second is padding and counts nothing.
  const torch::Tensor logits = torch::tensor({{{1.0, 2.0, 0.5}, {0.3, 0.3, 0.3}}});
  const torch::Tensor targets = torch::tensor({{1, 0}}, torch::kLong);
  const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(0.5));
  const double nll = lse - 2.0;
  const double smooth = lse - (1.0 + 2.0 + 0.5) / 3;
  EXPECT_NEAR(0.9 * nll + 0.1 * smooth, LabelSmoothedLossSum(logits, targets, 0.1, 0).item<double>(), 1e-6);
}

TEST(TransformerTest, GreedyDecodingStopsAtTheEndAndPadsAfterIt) {
  torch::manual_seed(3);
  Transformer model(Small());
  model->eval();
  const torch::Tensor source = torch::tensor({{5, 6, 7, 3}, {8, 9, 3, 0}}, torch::kLong);
  const torch::Tensor out = GreedyDecode(*model, source, 2, 3, 10);
  EXPECT_EQ(2, out.size(0));
  EXPECT_LE(out.size(1), 10);
  for (int64_t row = 0; row < 2; ++row) {
    bool ended = false;
    for (int64_t i = 0; i < out.size(1); ++i) {
      const int64_t id = out[row][i].item<int64_t>();
      if (ended) {
        EXPECT_EQ(0, id) << "after the end";
      }
      ended = ended || id == 3;
    }
  }
}

// A beam of one is greedy decoding; a wider one gives each sentence one hypothesis that ends at
// <\s> (or at max_length), padded after it.
TEST(TransformerTest, BeamSearchOfWidthOneIsGreedyDecoding) {
  torch::manual_seed(4);
  Transformer model(Small());
  model->eval();
  const torch::Tensor source = torch::tensor({{5, 6, 7, 3}, {8, 9, 3, 0}}, torch::kLong);
  const torch::Tensor greedy = GreedyDecode(*model, source, 2, 3, 8);
  const torch::Tensor one = BeamSearchDecode(*model, source, 2, 3, 8, 1, 0.6);
  ASSERT_EQ(greedy.sizes(), one.sizes());
  EXPECT_TRUE(torch::equal(greedy, one));
  const torch::Tensor wide = BeamSearchDecode(*model, source, 2, 3, 8, 4, 0.6);
  ASSERT_EQ(2, wide.size(0));
  for (int64_t row = 0; row < 2; ++row) {
    int64_t length = 0;
    while (length < wide.size(1) && wide[row][length].item<int64_t>() != 0) ++length;
    ASSERT_GT(length, 0);
    EXPECT_TRUE(length == 8 || wide[row][length - 1].item<int64_t>() == 3) << row;
    for (int64_t i = 0; i + 1 < length; ++i) EXPECT_NE(3, wide[row][i].item<int64_t>()) << row;
  }
}

}  // namespace
}  // namespace ergobench
