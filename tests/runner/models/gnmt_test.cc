#include "runner/models/gnmt.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace ergobench {
namespace {

GnmtConfig Small() {
  GnmtConfig c;
  c.vocab_size = 40;
  c.hidden = 12;
  c.layers = 3;
  return c;
}

int64_t Count(torch::nn::Module& module) {
  int64_t n = 0;
  for (const torch::Tensor& p : module.parameters()) n += p.numel();
  return n;
}

// An LSTM of input i and hidden h: 4h·(i + h) weights and two biases of 4h.
int64_t Lstm(int64_t input, int64_t hidden) { return 4 * hidden * (input + hidden) + 8 * hidden; }

TEST(GnmtTest, HasTheParametersOfItsConfigAndMlperfsCount) {
  const GnmtConfig c = Small();
  Gnmt model(c);
  const int64_t v = c.vocab_size, h = c.hidden;
  const int64_t encoder = 2 * Lstm(h, h) + Lstm(2 * h, h) + Lstm(h, h);
  const int64_t attention = 2 * h * h + h + 1 + h;
  const int64_t decoder = Lstm(h, h) + attention + 2 * Lstm(2 * h, h) + h * v + v;
  EXPECT_EQ(v * h + encoder + decoder, Count(*model));
  // MLPerf's GNMT (and MLBench's): 1024 wide, 4 layers, a vocabulary of 32320 tokens.
  GnmtConfig mlperf;
  mlperf.vocab_size = 32320;
  Gnmt reference(mlperf);
  EXPECT_EQ(160671297, Count(*reference));
}

TEST(GnmtTest, PaddingAfterTheSourceChangesNothing) {
  torch::manual_seed(1);
  Gnmt model(Small());
  model->eval();
  const torch::Tensor target = torch::tensor({{2, 8, 9}}, torch::kLong);
  const torch::Tensor plain = model->forward(torch::tensor({{5, 6, 7, 3}}, torch::kLong), target);
  const torch::Tensor padded = model->forward(torch::tensor({{5, 6, 7, 3, 0, 0}}, torch::kLong), target);
  EXPECT_TRUE(torch::allclose(plain, padded, 1e-5, 1e-6));
  // In a batch with a longer sentence, a short one's output is its own alone.
  const torch::Tensor batch = model->forward(torch::tensor({{5, 6, 7, 3, 0, 0}, {9, 9, 9, 9, 9, 3}}, torch::kLong),
                                             torch::tensor({{2, 8, 9}, {2, 4, 4}}, torch::kLong));
  EXPECT_TRUE(torch::allclose(plain[0], batch[0], 1e-5, 1e-6));
}

TEST(GnmtTest, ALaterTargetTokenChangesNoEarlierOutput) {
  torch::manual_seed(2);
  Gnmt model(Small());
  model->eval();
  const torch::Tensor source = torch::tensor({{5, 6, 7, 3}}, torch::kLong);
  const torch::Tensor a = model->forward(source, torch::tensor({{2, 8, 9, 10}}, torch::kLong));
  const torch::Tensor b = model->forward(source, torch::tensor({{2, 8, 9, 11}}, torch::kLong));
  EXPECT_TRUE(torch::allclose(a.slice(1, 0, 3), b.slice(1, 0, 3), 1e-5, 1e-6));
  EXPECT_FALSE(torch::allclose(a.select(1, 3), b.select(1, 3)));
}

// Decoding a token at a time, the LSTMs' states carried, gives the logits of the whole target
// at once; the attention is a distribution over the source's own tokens.
TEST(GnmtTest, StepByStepDecodingIsTheWholeTargetsDecoding) {
  torch::manual_seed(3);
  Gnmt model(Small());
  model->eval();
  const torch::Tensor source = torch::tensor({{5, 6, 7, 3}, {8, 3, 0, 0}}, torch::kLong);
  const torch::Tensor target = torch::tensor({{2, 8, 9, 10}, {2, 11, 12, 13}}, torch::kLong);
  const GnmtMemory memory = model->Encode(source);
  std::vector<LstmState> state;
  const auto [whole, attention] = model->Decode(memory, target, &state);
  std::vector<LstmState> stepping;
  for (int64_t t = 0; t < target.size(1); ++t) {
    const auto [step, step_attention] = model->Decode(memory, target.slice(1, t, t + 1), &stepping);
    EXPECT_TRUE(torch::allclose(step.select(1, 0), whole.select(1, t), 1e-5, 1e-6)) << t;
    EXPECT_TRUE(torch::allclose(step_attention.select(1, 0), attention.select(1, t), 1e-5, 1e-6)) << t;
  }
  EXPECT_TRUE(torch::allclose(attention.sum(-1), torch::ones({2, 4}), 1e-5, 1e-6));
  EXPECT_EQ(0, attention[1].slice(1, 2).abs().sum().item<float>());  // the second sentence's padding
}

// One query against two keys of width 1, units 2, with hand-set weights: W_q = (1, 2),
// W_k = (1, -1), b = (0, 0.5), v = (3, 4) (|v| = 5), g = 2. Query 0.5, keys 1 and -1:
//   key 1:  tanh((0.5 + 1, 1 - 1 + 0.5)) = tanh(1.5, 0.5); score = 2/5·(3·tanh 1.5 + 4·tanh 0.5)
//   key -1: tanh((0.5 - 1, 1 + 1 + 0.5)) = tanh(-0.5, 2.5); score = 2/5·(3·tanh -0.5 + 4·tanh 2.5)
TEST(GnmtTest, BahdanauAttentionByHand) {
  BahdanauAttention attention(1, 1, 2, 0.1);
  {
    torch::NoGradGuard no_grad;
    attention->linear_q->weight.copy_(torch::tensor({{1.0}, {2.0}}));
    attention->linear_k->weight.copy_(torch::tensor({{1.0}, {-1.0}}));
    attention->normalize_bias.copy_(torch::tensor({0.0, 0.5}));
    attention->linear_att.copy_(torch::tensor({3.0, 4.0}));
    attention->normalize_scalar.fill_(2.0);
  }
  const torch::Tensor keys = torch::tensor({{{1.0}, {-1.0}}});
  const torch::Tensor query = torch::tensor({{{0.5}}});
  const auto [context, weights] =
      attention->forward(query, keys, attention->ProjectKeys(keys), torch::zeros({1, 2}, torch::kBool));
  const double s1 = 0.4 * (3 * std::tanh(1.5) + 4 * std::tanh(0.5));
  const double s2 = 0.4 * (3 * std::tanh(-0.5) + 4 * std::tanh(2.5));
  const double w1 = std::exp(s1) / (std::exp(s1) + std::exp(s2));
  EXPECT_NEAR(w1, weights[0][0][0].item<double>(), 1e-6);
  EXPECT_NEAR(w1 * 1.0 + (1 - w1) * -1.0, context[0][0][0].item<double>(), 1e-6);
  // The second key masked: all the weight on the first.
  const auto [masked, masked_weights] =
      attention->forward(query, keys, attention->ProjectKeys(keys), torch::tensor({{false, true}}));
  EXPECT_EQ(1.0, masked_weights[0][0][0].item<double>());
  EXPECT_EQ(1.0, masked[0][0][0].item<double>());
}

// Batches of random sentences of 5 tokens out of 10 (ids 4 to 13) and their reversal, as
// [source with <\s>, target input from <s>, target output with <\s>].
std::vector<torch::Tensor> ReversalBatch(int64_t sentences) {
  const torch::Tensor words = torch::randint(4, 14, {sentences, 5}, torch::kLong);
  const torch::Tensor reversed = words.flip(1);
  const torch::Tensor end = torch::full({sentences, 1}, 3, torch::kLong), begin = torch::full({sentences, 1}, 2, torch::kLong);
  return {torch::cat({words, end}, 1), torch::cat({begin, reversed}, 1), torch::cat({reversed, end}, 1)};
}

// Reversing a sentence needs the attention to find, at each step, the source token that
// comes next: a model that learns it uses the source through the attention, not only the
// target's own history. Trained until it reverses a held-out batch exactly, checked every 100
// steps: how many steps that takes depends on the CPU's kernels (one AMD EPYC with AVX-512 still
// let one of 32 sentences run past its end at step 1000, where other machines had it), whether
// it gets there does not.
TEST(GnmtTest, LearnsToReverseSentences) {
  torch::manual_seed(5);
  GnmtConfig c;
  c.vocab_size = 14;
  c.hidden = 32;
  c.layers = 2;
  c.dropout = 0;
  Gnmt model(c);
  const std::vector<torch::Tensor> test = ReversalBatch(32);
  DecodeOptions options;
  options.max_length = 10;
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(1e-2));
  torch::Tensor output;
  int step = 0;
  for (bool reversed = false; !reversed && step < 3000;) {
    model->train();
    for (const int end = step + 100; step < end; ++step) {
      const std::vector<torch::Tensor> batch = ReversalBatch(64);
      adam.zero_grad();
      const torch::Tensor loss = LabelSmoothedLossSum(model->forward(batch[0], batch[1]), batch[2], 0.0, 0) / 64.0;
      loss.backward();
      adam.step();
    }
    model->eval();
    output = GreedyDecode(*model, test[0], options);
    reversed = output.size(1) == 6 && torch::equal(output, test[2]);
  }
  ASSERT_EQ(output.size(1), 6) << "after " << step << " steps";
  EXPECT_TRUE(torch::equal(output, test[2])) << output << test[2];
}

}  // namespace
}  // namespace ergobench
