// GNMT v2 as MLBench's task 4a runs it (mlbench-core's models/pytorch/gnmt, from NVIDIA's
// MLPerf reference): an embedding shared by encoder and decoder; an encoder of `layers` LSTMs,
// the first bidirectional over each sentence's own length (packed), the second taking its
// 2·hidden output, residual connections from the third on; a decoder whose first LSTM's
// output queries normalised Bahdanau attention over the encoder's output, the attention's
// context concatenated to the input of every later LSTM, residual connections from its third
// LSTM on; dropout on every LSTM's input; a linear classifier with bias (not tied); every weight
// uniform in ±0.1, the LSTMs' hidden-hidden biases zero. MLBench's configuration (1024 wide, 4
// layers, 32320 tokens) has 160,671,297 parameters, MLPerf's count. Only torch translation
// units include this header.
#pragma once

#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>

#include "runner/models/seq2seq.h"

namespace ergobench {

struct GnmtConfig {
  int64_t vocab_size = 0;  // both languages'
  int64_t hidden = 1024;
  int64_t layers = 4;  // the encoder's (the first bidirectional) and as many in the decoder; at least 2
  double dropout = 0.2;
  double init_range = 0.1;
  int64_t pad = 0;  // the padding id: not encoded, never attended to
};

// Bahdanau's additive attention with the normalisation of tf.contrib.seq2seq (normalize=True):
// score(q, k) = g · (v / |v|) · tanh(W_q q + W_k k + b).
class BahdanauAttentionImpl : public torch::nn::Module {
 public:
  BahdanauAttentionImpl(int64_t query_size, int64_t key_size, int64_t units, double init_range);
  // W_k·keys, computed once per source batch.
  torch::Tensor ProjectKeys(const torch::Tensor& keys) { return linear_k(keys); }
  // query [B, Tq, query_size], keys [B, S, key_size], padding [B, S] (true: not attended).
  // Returns the context [B, Tq, key_size] and the attention weights [B, Tq, S].
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& query, const torch::Tensor& keys,
                                                   const torch::Tensor& projected_keys, const torch::Tensor& padding);

  torch::nn::Linear linear_q{nullptr}, linear_k{nullptr};
  torch::Tensor linear_att, normalize_scalar, normalize_bias;
};
TORCH_MODULE(BahdanauAttention);

using LstmState = std::tuple<torch::Tensor, torch::Tensor>;  // (h, c), [1, batch, hidden]

// What the decoder reads of an encoded source batch.
struct GnmtMemory {
  torch::Tensor context;         // [B, S, hidden]: the encoder's output
  torch::Tensor projected_keys;  // the attention's W_k·context
  torch::Tensor padding;         // [B, S], true at padding
};

class GnmtImpl : public Seq2SeqModule {
 public:
  explicit GnmtImpl(const GnmtConfig& config);

  // source: [batch, S] ids padded at the end; target_input: [batch, T]; logits [batch, T, vocab].
  torch::Tensor forward(const torch::Tensor& source, const torch::Tensor& target_input);
  torch::Tensor Logits(const torch::Tensor& source, const torch::Tensor& target_input) override {
    return forward(source, target_input);
  }
  // Decoding carries the LSTMs' states from token to token.
  std::unique_ptr<StepDecoder> NewStepDecoder() override;
  int64_t pad() const override { return config_.pad; }

  GnmtMemory Encode(const torch::Tensor& source);
  // The decoder over `target_input` from the LSTMs' `state` (empty: zeros), which it leaves at
  // the last token's. Returns the logits [B, T, vocab] and the attention [B, T, S].
  std::tuple<torch::Tensor, torch::Tensor> Decode(const GnmtMemory& memory, const torch::Tensor& target_input,
                                                  std::vector<LstmState>* state);

  const GnmtConfig& config() const { return config_; }

 private:
  torch::Tensor Dropout(const torch::Tensor& x) const;

  GnmtConfig config_;
  torch::nn::Embedding embedding_{nullptr};
  torch::nn::LSTM encoder_bidirectional_{nullptr};
  torch::nn::ModuleList encoder_{nullptr};  // the unidirectional LSTMs after it
  torch::nn::LSTM decoder_first_{nullptr};  // the one whose output queries the attention
  BahdanauAttention attention_{nullptr};
  torch::nn::ModuleList decoder_{nullptr};  // the LSTMs after it, each fed the context too
  torch::nn::Linear classifier_{nullptr};
};
TORCH_MODULE(Gnmt);

}  // namespace ergobench
