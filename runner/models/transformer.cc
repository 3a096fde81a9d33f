#include "runner/models/transformer.h"

#include <cmath>
#include <limits>
#include <memory>

#include <torch/torch.h>

namespace ergobench {
namespace {

torch::nn::Linear XavierLinear(int64_t in, int64_t out, bool bias) {
  torch::nn::Linear linear(torch::nn::LinearOptions(in, out).bias(bias));
  torch::NoGradGuard no_grad;
  torch::nn::init::xavier_uniform_(linear->weight);
  if (bias) torch::nn::init::zeros_(linear->bias);
  return linear;
}

torch::nn::LayerNorm Norm(int64_t dim) { return torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})); }

// The tensor2tensor sinusoids fairseq uses: sin of every frequency, then cos of every one.
torch::Tensor SinusoidalPositions(int64_t count, int64_t dim) {
  const int64_t half = dim / 2;
  const torch::Tensor frequencies = torch::exp(torch::arange(half, torch::kFloat) * -(std::log(10000.0) / (half - 1)));
  const torch::Tensor angles = torch::arange(count, torch::kFloat).unsqueeze(1) * frequencies.unsqueeze(0);
  torch::Tensor table = torch::cat({torch::sin(angles), torch::cos(angles)}, 1);
  if (dim % 2 == 1) table = torch::cat({table, torch::zeros({count, 1})}, 1);
  return table;
}

}  // namespace

AttentionImpl::AttentionImpl(int64_t dim, int64_t heads, double dropout) : heads_(heads), dropout_(dropout) {
  q = register_module("q", XavierLinear(dim, dim, false));
  k = register_module("k", XavierLinear(dim, dim, false));
  v = register_module("v", XavierLinear(dim, dim, false));
  out = register_module("out", XavierLinear(dim, dim, false));
}

torch::Tensor AttentionImpl::forward(const torch::Tensor& query, const torch::Tensor& memory,
                                     const torch::Tensor& padding, bool causal) {
  const int64_t batch = query.size(0), tokens = query.size(1), keys = memory.size(1), dim = query.size(2);
  const int64_t head_dim = dim / heads_;
  const auto split = [&](const torch::Tensor& x, int64_t length) {  // [B, L, D] -> [B, heads, L, head_dim]
    return x.view({batch, length, heads_, head_dim}).transpose(1, 2);
  };
  const torch::Tensor qh = split(q(query), tokens) * (1.0 / std::sqrt(static_cast<double>(head_dim)));
  torch::Tensor scores = torch::matmul(qh, split(k(memory), keys).transpose(-2, -1));  // [B, heads, T, S]
  const float minus_infinity = -std::numeric_limits<float>::infinity();
  if (padding.defined()) scores = scores.masked_fill(padding.view({batch, 1, 1, keys}), minus_infinity);
  if (causal) {
    scores = scores.masked_fill(torch::ones({tokens, keys}, torch::dtype(torch::kBool).device(query.device())).triu(1),
                                minus_infinity);
  }
  torch::Tensor weights = torch::dropout(torch::softmax(scores, -1), dropout_, is_training());
  return out(torch::matmul(weights, split(v(memory), keys)).transpose(1, 2).reshape({batch, tokens, dim}));
}

TransformerLayerImpl::TransformerLayerImpl(const TransformerConfig& c, bool decoder)
    : dropout_(c.dropout), relu_dropout_(c.relu_dropout), decoder_(decoder) {
  self_norm_ = register_module("self_norm", Norm(c.dim));
  self_attention_ = register_module("self_attention", Attention(c.dim, c.heads, c.attention_dropout));
  if (decoder) {
    cross_norm_ = register_module("cross_norm", Norm(c.dim));
    cross_attention_ = register_module("cross_attention", Attention(c.dim, c.heads, c.attention_dropout));
  }
  ffn_norm_ = register_module("ffn_norm", Norm(c.dim));
  fc1_ = register_module("fc1", XavierLinear(c.dim, c.ffn, true));
  fc2_ = register_module("fc2", XavierLinear(c.ffn, c.dim, true));
}

// Pre-LayerNorm residual blocks: x + dropout(sublayer(norm(x))).
torch::Tensor TransformerLayerImpl::forward(torch::Tensor x, const torch::Tensor& padding, const torch::Tensor& memory,
                                            const torch::Tensor& memory_padding) {
  const bool training = is_training();
  torch::Tensor normed = self_norm_(x);
  x = x + torch::dropout(self_attention_(normed, normed, padding, decoder_), dropout_, training);
  if (decoder_) {
    x = x + torch::dropout(cross_attention_(cross_norm_(x), memory, memory_padding, false), dropout_, training);
  }
  const torch::Tensor hidden = torch::dropout(torch::relu(fc1_(ffn_norm_(x))), relu_dropout_, training);
  return x + torch::dropout(fc2_(hidden), dropout_, training);
}

TransformerImpl::TransformerImpl(const TransformerConfig& c) : config_(c) {
  TORCH_CHECK(c.vocab_size > 0 && c.dim > 0 && c.heads > 0 && c.dim % c.heads == 0,
              "a transformer needs a vocabulary, and heads that divide its dimension");
  embedding_ = register_module("embedding", torch::nn::Embedding(c.vocab_size, c.dim));
  {
    torch::NoGradGuard no_grad;
    torch::nn::init::normal_(embedding_->weight, 0.0, std::pow(static_cast<double>(c.dim), -0.5));
    embedding_->weight[c.pad].zero_();
  }
  positions_ = register_buffer("positions", SinusoidalPositions(c.max_positions + 1, c.dim));
  {
    torch::NoGradGuard no_grad;
    positions_[0].zero_();
  }
  encoder_ = register_module("encoder", torch::nn::ModuleList());
  decoder_ = register_module("decoder", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.encoder_layers; ++i) encoder_->push_back(TransformerLayer(c, false));
  for (int64_t i = 0; i < c.decoder_layers; ++i) decoder_->push_back(TransformerLayer(c, true));
  encoder_norm_ = register_module("encoder_norm", Norm(c.dim));
  decoder_norm_ = register_module("decoder_norm", Norm(c.dim));
}

// Token embeddings × sqrt(dim) plus positions: the first token that is not padding at 1, the
// next at 2, ..., padding at 0 (a row of zeros), so left padding gets the same positions.
torch::Tensor TransformerImpl::Embed(const torch::Tensor& tokens) {
  TORCH_CHECK(tokens.size(1) <= config_.max_positions, "a sentence of ", tokens.size(1),
              " tokens is longer than the model's ", config_.max_positions);
  const torch::Tensor real = tokens.ne(config_.pad);
  const torch::Tensor positions = real.to(torch::kLong).cumsum(1) * real;
  const torch::Tensor x = embedding_(tokens) * std::sqrt(static_cast<double>(config_.dim)) + positions_.index({positions});
  return torch::dropout(x, config_.dropout, is_training());
}

torch::Tensor TransformerImpl::Encode(const torch::Tensor& source) {
  const torch::Tensor padding = source.eq(config_.pad);
  torch::Tensor x = Embed(source);
  for (const auto& layer : *encoder_) x = layer->as<TransformerLayer>()->forward(x, padding);
  return encoder_norm_(x);
}

torch::Tensor TransformerImpl::Decode(const torch::Tensor& memory, const torch::Tensor& source,
                                      const torch::Tensor& target_input) {
  const torch::Tensor memory_padding = source.eq(config_.pad);
  torch::Tensor x = Embed(target_input);
  for (const auto& layer : *decoder_) {
    x = layer->as<TransformerLayer>()->forward(x, target_input.eq(config_.pad), memory, memory_padding);
  }
  return torch::matmul(decoder_norm_(x), embedding_->weight.t());  // the output layer is the embedding
}

torch::Tensor TransformerImpl::forward(const torch::Tensor& source, const torch::Tensor& target_input) {
  return Decode(Encode(source), source, target_input);
}

namespace {

class TransformerStepDecoder : public StepDecoder {
 public:
  explicit TransformerStepDecoder(TransformerImpl& model) : model_(model) {}
  void Start(const torch::Tensor& source) override {
    source_ = source;
    memory_ = model_.Encode(source);
  }
  torch::Tensor Next(const torch::Tensor& prefixes) override {
    return torch::log_softmax(model_.Decode(memory_, source_, prefixes).select(1, -1).to(torch::kFloat), -1);
  }
  // The decoder reads the whole prefix each step: no state but the source's, which stays.
  void Reorder(const torch::Tensor& /*rows*/) override {}

 private:
  TransformerImpl& model_;
  torch::Tensor source_, memory_;
};

}  // namespace

std::unique_ptr<StepDecoder> TransformerImpl::NewStepDecoder() { return std::make_unique<TransformerStepDecoder>(*this); }

}  // namespace ergobench
