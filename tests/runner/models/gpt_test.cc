#include "runner/models/gpt.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace ergobench {
namespace {

int64_t CountParameters(torch::nn::Module& module) {
  int64_t n = 0;
  for (const torch::Tensor& p : module.parameters()) n += p.numel();
  return n;
}

TEST(GptTest, ModulesHoldExactlyThePresetsParameters) {
  for (const char* name : {"tiny", "mini", "gpt2"}) {
    const GptConfig& config = FindGptPreset(name)->config;
    Gpt model(config);
    EXPECT_EQ(CountParameters(*model), GptParameterCount(config)) << name;
  }
  // 124,439,808 for GPT-2 small, as its published checkpoint.
  Gpt gpt2(FindGptPreset("gpt2")->config);
  EXPECT_EQ(CountParameters(*gpt2), 124439808);
}

TEST(GptTest, LogitsHaveTheVocabularysWidthAndTheOutputLayerIsTheEmbedding) {
  torch::manual_seed(1);
  const GptConfig& config = FindGptPreset("tiny")->config;
  Gpt model(config);
  const torch::Tensor tokens = torch::randint(config.vocab_size, {3, 10}, torch::kLong);
  const torch::Tensor logits = model->forward(tokens);
  EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{3, 10, config.vocab_size}));
  // Tied: a gradient reaches the token embedding from the output layer even for tokens that
  // never appear in the input.
  logits.sum().backward();
  const torch::Tensor wte_grad = model->named_parameters()["wte.weight"].grad();
  const torch::Tensor used = std::get<0>(at::_unique(tokens.flatten()));
  torch::Tensor unused_rows = torch::ones({config.vocab_size}, torch::kBool);
  unused_rows.index_put_({used}, false);
  EXPECT_GT(wte_grad.index({unused_rows}).abs().sum().item<double>(), 0);
}

TEST(GptTest, AttentionIsCausal) {
  torch::manual_seed(2);
  const GptConfig& config = FindGptPreset("tiny")->config;
  Gpt model(config);
  model->eval();
  torch::NoGradGuard no_grad;
  torch::Tensor tokens = torch::randint(config.vocab_size, {1, 16}, torch::kLong);
  const torch::Tensor before = model->forward(tokens);
  tokens[0][9] = (tokens[0][9].item<int64_t>() + 1) % config.vocab_size;
  const torch::Tensor after = model->forward(tokens);
  // Positions before the change see nothing of it; the changed one and later do.
  EXPECT_TRUE(torch::allclose(before.slice(1, 0, 9), after.slice(1, 0, 9)));
  EXPECT_FALSE(torch::allclose(before.slice(1, 9, 16), after.slice(1, 9, 16)));
}

TEST(GptTest, TooLongASequenceIsRefused) {
  const GptConfig& config = FindGptPreset("tiny")->config;
  Gpt model(config);
  EXPECT_THROW(model->forward(torch::zeros({1, config.sequence_length + 1}, torch::kLong)), c10::Error);
}

}  // namespace
}  // namespace ergobench
