// A GPT-2 decoder-only transformer as libtorch modules: learned token and position
// embeddings, pre-LayerNorm blocks of causal self-attention and a 4x GELU MLP, a final
// LayerNorm, and the output layer tied to the token embedding. Initialised as GPT-2: normal
// weights with std 0.02, residual projections scaled by 1/sqrt(2·layers). Only torch
// translation units include this header.
#pragma once

#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include "runner/models/block_hooks.h"
#include "runner/models/gpt_config.h"

namespace ergobench {

class CausalSelfAttentionImpl : public torch::nn::Module {
 public:
  explicit CausalSelfAttentionImpl(const GptConfig& config);
  // x: [batch, tokens, hidden].
  torch::Tensor forward(const torch::Tensor& x);

  torch::nn::Linear qkv{nullptr}, proj{nullptr};

 private:
  int64_t heads_;
  torch::Tensor future_;  // [S, S], true above the diagonal: the positions a token may not see
};
TORCH_MODULE(CausalSelfAttention);

class GptBlockImpl : public torch::nn::Module {
 public:
  explicit GptBlockImpl(const GptConfig& config);
  torch::Tensor forward(torch::Tensor x);

  torch::nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  CausalSelfAttention attention{nullptr};
  torch::nn::Linear fc{nullptr}, fc_proj{nullptr};
};
TORCH_MODULE(GptBlock);

class GptImpl : public torch::nn::Module {
 public:
  explicit GptImpl(const GptConfig& config);
  // tokens: [batch, T] int64 with T <= sequence_length; returns logits [batch, T, vocab].
  torch::Tensor forward(const torch::Tensor& tokens);
  const GptConfig& config() const { return config_; }

  // The parameters block by block, for ZeRO stage 3: first the ends (embeddings, the final
  // LayerNorm and, tied to the token embedding, the output layer), then each transformer block.
  std::vector<std::vector<torch::Tensor>> ParameterBlocks();
  // Called around each of those blocks in forward; null (the default) for none.
  void SetBlockHooks(BlockHooks* hooks) { hooks_ = hooks; }

 private:
  GptConfig config_;
  BlockHooks* hooks_ = nullptr;
  torch::nn::Embedding wte_{nullptr}, wpe_{nullptr};
  torch::nn::ModuleList blocks_{nullptr};
  torch::nn::LayerNorm ln_f_{nullptr};
};
TORCH_MODULE(Gpt);

}  // namespace ergobench
