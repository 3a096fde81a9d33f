// The Transformer of "Attention Is All You Need" as MLBench's task 4b runs it (fairseq's, as
// in MLPerf's reference): pre-LayerNorm encoder and decoder layers with a final LayerNorm on
// each, attention projections without bias, ReLU feed-forward layers, sinusoidal positions
// (sines and cosines concatenated, the padding position a row of zeros), and one embedding
// matrix for the encoder's input, the decoder's input and the output layer (a joint
// vocabulary), scaled by sqrt(dim). Only torch translation units include this header.
#pragma once

#include <cstdint>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include "runner/models/seq2seq.h"

namespace ergobench {

struct TransformerConfig {
  int64_t vocab_size = 0;  // both languages'
  int64_t dim = 1024;
  int64_t ffn = 4096;
  int64_t heads = 16;
  int64_t encoder_layers = 6;
  int64_t decoder_layers = 6;
  double dropout = 0.1;
  double attention_dropout = 0.1;
  double relu_dropout = 0.1;
  int64_t max_positions = 80;  // tokens a sentence may have, on either side
  int64_t pad = 0;             // the padding id: no position, no loss, never attended to
};

// Multi-head attention of `query` over `memory` (itself, for self-attention), [batch, tokens, dim].
class AttentionImpl : public torch::nn::Module {
 public:
  AttentionImpl(int64_t dim, int64_t heads, double dropout);
  // `padding`: [batch, memory tokens], true where memory is padding. `causal`: a query sees
  // no later position.
  torch::Tensor forward(const torch::Tensor& query, const torch::Tensor& memory, const torch::Tensor& padding,
                        bool causal);

  torch::nn::Linear q{nullptr}, k{nullptr}, v{nullptr}, out{nullptr};

 private:
  int64_t heads_;
  double dropout_;
};
TORCH_MODULE(Attention);

class TransformerLayerImpl : public torch::nn::Module {
 public:
  // A decoder layer also attends to the encoder's output.
  TransformerLayerImpl(const TransformerConfig& config, bool decoder);
  torch::Tensor forward(torch::Tensor x, const torch::Tensor& padding, const torch::Tensor& memory = {},
                        const torch::Tensor& memory_padding = {});

 private:
  double dropout_, relu_dropout_;
  bool decoder_;
  torch::nn::LayerNorm self_norm_{nullptr}, cross_norm_{nullptr}, ffn_norm_{nullptr};
  Attention self_attention_{nullptr}, cross_attention_{nullptr};
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE(TransformerLayer);

class TransformerImpl : public Seq2SeqModule {
 public:
  explicit TransformerImpl(const TransformerConfig& config);

  // source: [batch, S] ids; target_input: [batch, T] ids (the target after <s>, shifted);
  // returns logits [batch, T, vocab].
  torch::Tensor forward(const torch::Tensor& source, const torch::Tensor& target_input);
  torch::Tensor Logits(const torch::Tensor& source, const torch::Tensor& target_input) override {
    return forward(source, target_input);
  }
  // Decoding recomputes the decoder over the whole prefix each step (no key-value cache).
  std::unique_ptr<StepDecoder> NewStepDecoder() override;
  int64_t pad() const override { return config_.pad; }
  // The encoder's output [batch, S, dim], for decoding one step at a time.
  torch::Tensor Encode(const torch::Tensor& source);
  torch::Tensor Decode(const torch::Tensor& memory, const torch::Tensor& source, const torch::Tensor& target_input);

  const TransformerConfig& config() const { return config_; }

 private:
  torch::Tensor Embed(const torch::Tensor& tokens);

  TransformerConfig config_;
  torch::nn::Embedding embedding_{nullptr};
  torch::Tensor positions_;  // [max_positions + 1, dim], row 0 for padding
  torch::nn::ModuleList encoder_{nullptr}, decoder_{nullptr};
  torch::nn::LayerNorm encoder_norm_{nullptr}, decoder_norm_{nullptr};
};
TORCH_MODULE(Transformer);

}  // namespace ergobench
