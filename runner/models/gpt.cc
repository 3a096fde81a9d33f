#include "runner/models/gpt.h"

#include <cmath>

#include <torch/torch.h>

namespace ergobench {
namespace {

constexpr double kInitStd = 0.02;

torch::nn::Linear Linear(int64_t in, int64_t out, double std) {
  torch::nn::Linear linear(in, out);
  torch::NoGradGuard no_grad;
  torch::nn::init::normal_(linear->weight, 0.0, std);
  torch::nn::init::zeros_(linear->bias);
  return linear;
}

torch::nn::LayerNorm LayerNorm(int64_t hidden) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden}).eps(1e-5));
}

}  // namespace

CausalSelfAttentionImpl::CausalSelfAttentionImpl(const GptConfig& c) : heads_(c.heads) {
  qkv = register_module("qkv", Linear(c.hidden, 3 * c.hidden, kInitStd));
  // GPT-2: residual projections start smaller, so the residual stream's variance does not
  // grow with depth.
  proj = register_module("proj", Linear(c.hidden, c.hidden, kInitStd / std::sqrt(2.0 * static_cast<double>(c.layers))));
  future_ = torch::ones({c.sequence_length, c.sequence_length}, torch::kBool).triu(1);
}

torch::Tensor CausalSelfAttentionImpl::forward(const torch::Tensor& x) {
  const int64_t batch = x.size(0), tokens = x.size(1), hidden = x.size(2);
  const int64_t head_dim = hidden / heads_;
  // [B, T, 3h] -> three [B, heads, T, head_dim].
  std::vector<torch::Tensor> qkv_parts = qkv(x).view({batch, tokens, 3, heads_, head_dim}).permute({2, 0, 3, 1, 4}).unbind(0);
  const torch::Tensor& q = qkv_parts[0];
  const torch::Tensor& k = qkv_parts[1];
  const torch::Tensor& v = qkv_parts[2];
  torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(head_dim));
  // Moved once to the input's device, not copied every call: a copy from pageable host memory
  // waits for the GPU's queue, twelve times a forward pass for GPT-2 small.
  if (future_.device() != x.device()) future_ = future_.to(x.device());
  scores = scores.masked_fill(future_.slice(0, 0, tokens).slice(1, 0, tokens),
                              -std::numeric_limits<float>::infinity());
  torch::Tensor y = torch::matmul(torch::softmax(scores, -1), v);  // [B, heads, T, head_dim]
  return proj(y.transpose(1, 2).reshape({batch, tokens, hidden}));
}

GptBlockImpl::GptBlockImpl(const GptConfig& c) {
  ln1 = register_module("ln1", LayerNorm(c.hidden));
  attention = register_module("attention", CausalSelfAttention(c));
  ln2 = register_module("ln2", LayerNorm(c.hidden));
  fc = register_module("fc", Linear(c.hidden, c.ffn_hidden(), kInitStd));
  fc_proj = register_module("fc_proj",
                            Linear(c.ffn_hidden(), c.hidden, kInitStd / std::sqrt(2.0 * static_cast<double>(c.layers))));
}

torch::Tensor GptBlockImpl::forward(torch::Tensor x) {
  x = x + attention(ln1(x));
  // GPT-2's GELU is the tanh approximation.
  return x + fc_proj(torch::gelu(fc(ln2(x)), "tanh"));
}

GptImpl::GptImpl(const GptConfig& c) : config_(c) {
  wte_ = register_module("wte", torch::nn::Embedding(c.vocab_size, c.hidden));
  wpe_ = register_module("wpe", torch::nn::Embedding(c.sequence_length, c.hidden));
  {
    torch::NoGradGuard no_grad;
    torch::nn::init::normal_(wte_->weight, 0.0, kInitStd);
    torch::nn::init::normal_(wpe_->weight, 0.0, kInitStd);
  }
  blocks_ = register_module("blocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.layers; ++i) blocks_->push_back(GptBlock(c));
  ln_f_ = register_module("ln_f", LayerNorm(c.hidden));
}

torch::Tensor GptImpl::forward(const torch::Tensor& tokens) {
  const int64_t length = tokens.size(1);
  TORCH_CHECK(length <= config_.sequence_length, "sequence of ", length, " tokens is longer than the model's ",
              config_.sequence_length);
  torch::Tensor positions = torch::arange(length, torch::TensorOptions().dtype(torch::kLong).device(tokens.device()));
  if (hooks_) hooks_->BeforeBlock(0);
  torch::Tensor x = wte_(tokens) + wpe_(positions);
  for (size_t i = 0; i < blocks_->size(); ++i) {
    if (hooks_) hooks_->BeforeBlock(i + 1);
    x = blocks_[i]->as<GptBlock>()->forward(x);
    if (hooks_) x = hooks_->AfterBlock(i + 1, x);
  }
  // The output layer is the token embedding, transposed (tied weights, as GPT-2).
  torch::Tensor logits = torch::matmul(ln_f_(x), wte_->weight.t());
  return hooks_ ? hooks_->AfterBlock(0, logits) : logits;
}

std::vector<std::vector<torch::Tensor>> GptImpl::ParameterBlocks() {
  std::vector<std::vector<torch::Tensor>> blocks = {{wte_->weight, wpe_->weight}};
  for (const torch::Tensor& p : ln_f_->parameters()) blocks[0].push_back(p);
  for (const auto& block : *blocks_) blocks.push_back(block->parameters());
  return blocks;
}

}  // namespace ergobench
