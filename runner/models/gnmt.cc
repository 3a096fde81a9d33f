#include "runner/models/gnmt.h"

#include <cmath>
#include <limits>
#include <optional>

#include <torch/torch.h>

namespace ergobench {
namespace {

// mlbench-core's init_lstm_: weights and input-hidden biases uniform, hidden-hidden biases 0.
torch::nn::LSTM UniformLstm(int64_t input, int64_t hidden, bool bidirectional, double range) {
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(input, hidden).batch_first(true).bidirectional(bidirectional));
  torch::NoGradGuard no_grad;
  for (auto& item : lstm->named_parameters()) {
    if (item.key().starts_with("bias_hh")) {
      item.value().zero_();
    } else {
      item.value().uniform_(-range, range);
    }
  }
  return lstm;
}

torch::nn::Linear UniformLinear(int64_t in, int64_t out, bool bias, double range) {
  torch::nn::Linear linear(torch::nn::LinearOptions(in, out).bias(bias));
  torch::NoGradGuard no_grad;
  linear->weight.uniform_(-range, range);
  if (bias) linear->bias.uniform_(-range, range);
  return linear;
}

// The output of `lstm` over x, from `state` when given; the state it ends in goes to `end`.
torch::Tensor RunLstm(torch::nn::LSTMImpl& lstm, const torch::Tensor& x, const std::optional<LstmState>& state,
                      std::vector<LstmState>* end) {
  auto [output, last] = state ? lstm.forward(x, *state) : lstm.forward(x);
  if (end) end->push_back(last);
  return output;
}

}  // namespace

BahdanauAttentionImpl::BahdanauAttentionImpl(int64_t query_size, int64_t key_size, int64_t units, double init_range) {
  linear_q = register_module("linear_q", UniformLinear(query_size, units, false, init_range));
  linear_k = register_module("linear_k", UniformLinear(key_size, units, false, init_range));
  linear_att = register_parameter("linear_att", torch::empty({units}).uniform_(-init_range, init_range));
  normalize_scalar = register_parameter("normalize_scalar", torch::full({1}, 1.0 / std::sqrt(static_cast<double>(units))));
  normalize_bias = register_parameter("normalize_bias", torch::zeros({units}));
}

std::tuple<torch::Tensor, torch::Tensor> BahdanauAttentionImpl::forward(const torch::Tensor& query,
                                                                        const torch::Tensor& keys,
                                                                        const torch::Tensor& projected_keys,
                                                                        const torch::Tensor& padding) {
  // [B, Tq, 1, U] + [B, 1, S, U]: every query against every key.
  const torch::Tensor sum = linear_q(query).unsqueeze(2) + projected_keys.unsqueeze(1) + normalize_bias;
  const torch::Tensor direction = linear_att / linear_att.norm() * normalize_scalar;
  torch::Tensor scores = torch::matmul(torch::tanh(sum), direction.to(sum.scalar_type()));  // [B, Tq, S]
  scores = scores.masked_fill(padding.unsqueeze(1), -std::numeric_limits<float>::infinity());
  const torch::Tensor weights = torch::softmax(scores.to(torch::kFloat), -1);
  return {torch::matmul(weights.to(keys.scalar_type()), keys), weights};
}

GnmtImpl::GnmtImpl(const GnmtConfig& c) : config_(c) {
  TORCH_CHECK(c.vocab_size > 0 && c.hidden > 0 && c.layers >= 2,
              "GNMT needs a vocabulary and at least two layers (the bidirectional one and one after it)");
  const int64_t h = c.hidden;
  const double range = c.init_range;
  embedding_ = register_module("embedding", torch::nn::Embedding(torch::nn::EmbeddingOptions(c.vocab_size, h).padding_idx(c.pad)));
  {
    torch::NoGradGuard no_grad;
    embedding_->weight.uniform_(-range, range);  // padding's row too, as mlbench-core's init does
  }
  encoder_bidirectional_ = register_module("encoder_bidirectional", UniformLstm(h, h, true, range));
  encoder_ = register_module("encoder", torch::nn::ModuleList());
  encoder_->push_back(UniformLstm(2 * h, h, false, range));
  for (int64_t i = 2; i < c.layers; ++i) encoder_->push_back(UniformLstm(h, h, false, range));
  decoder_first_ = register_module("decoder_first", UniformLstm(h, h, false, range));
  attention_ = register_module("attention", BahdanauAttention(h, h, h, range));
  decoder_ = register_module("decoder", torch::nn::ModuleList());
  for (int64_t i = 1; i < c.layers; ++i) decoder_->push_back(UniformLstm(2 * h, h, false, range));
  classifier_ = register_module("classifier", UniformLinear(h, c.vocab_size, true, range));
}

torch::Tensor GnmtImpl::Dropout(const torch::Tensor& x) const { return torch::dropout(x, config_.dropout, is_training()); }

GnmtMemory GnmtImpl::Encode(const torch::Tensor& source) {
  const torch::Tensor padding = source.eq(config_.pad);
  // The bidirectional layer runs over each sentence's own tokens, so that the backward
  // direction starts at its last token, not at the padding.
  const torch::Tensor lengths = padding.logical_not().sum(1).to(torch::kCPU, torch::kLong);
  const auto packed = torch::nn::utils::rnn::pack_padded_sequence(Dropout(embedding_(source)), lengths,
                                                                  /*batch_first=*/true, /*enforce_sorted=*/false);
  const auto bidirectional = std::get<0>(encoder_bidirectional_->forward_with_packed_input(packed));
  torch::Tensor x = std::get<0>(torch::nn::utils::rnn::pad_packed_sequence(bidirectional, /*batch_first=*/true, 0.0,
                                                                           source.size(1)));
  for (size_t i = 0; i < encoder_->size(); ++i) {
    const torch::Tensor y = RunLstm(*encoder_[i]->as<torch::nn::LSTM>(), Dropout(x), std::nullopt, nullptr);
    x = i == 0 ? y : y + x;  // residual from the third layer on
  }
  return {x, attention_->ProjectKeys(x), padding};
}

std::tuple<torch::Tensor, torch::Tensor> GnmtImpl::Decode(const GnmtMemory& memory, const torch::Tensor& target_input,
                                                          std::vector<LstmState>* state) {
  const bool from_zero = state->empty();
  const auto state_of = [&](size_t layer) { return from_zero ? std::nullopt : std::optional<LstmState>((*state)[layer]); };
  std::vector<LstmState> next;
  const torch::Tensor first = RunLstm(*decoder_first_, Dropout(embedding_(target_input)), state_of(0), &next);
  auto [context, weights] = attention_(first, memory.context, memory.projected_keys, memory.padding);
  torch::Tensor x = first;
  for (size_t i = 0; i < decoder_->size(); ++i) {
    const torch::Tensor input = Dropout(torch::cat({x, context.to(x.scalar_type())}, 2));
    const torch::Tensor y = RunLstm(*decoder_[i]->as<torch::nn::LSTM>(), input, state_of(i + 1), &next);
    x = i == 0 ? y : y + x;  // residual from the third layer on
  }
  *state = std::move(next);
  return {classifier_(x), weights};
}

torch::Tensor GnmtImpl::forward(const torch::Tensor& source, const torch::Tensor& target_input) {
  std::vector<LstmState> state;
  return std::get<0>(Decode(Encode(source), target_input, &state));
}

namespace {

class GnmtStepDecoder : public StepDecoder {
 public:
  explicit GnmtStepDecoder(GnmtImpl& model) : model_(model) {}
  void Start(const torch::Tensor& source) override {
    memory_ = model_.Encode(source);
    state_.clear();
  }
  // The LSTMs hold the prefix: only its last token goes in.
  torch::Tensor Next(const torch::Tensor& prefixes) override {
    auto [logits, attention] = model_.Decode(memory_, prefixes.slice(1, -1), &state_);
    attention_ = attention.select(1, 0);
    return torch::log_softmax(logits.select(1, 0).to(torch::kFloat), -1);
  }
  torch::Tensor LastAttention() const override { return attention_; }
  // Only the LSTMs' states follow their hypotheses; the encoder's output is the sentence's.
  void Reorder(const torch::Tensor& rows) override {
    for (auto& [h, c] : state_) {
      h = h.index_select(1, rows);
      c = c.index_select(1, rows);
    }
  }

 private:
  GnmtImpl& model_;
  GnmtMemory memory_;
  std::vector<LstmState> state_;
  torch::Tensor attention_;
};

}  // namespace

std::unique_ptr<StepDecoder> GnmtImpl::NewStepDecoder() { return std::make_unique<GnmtStepDecoder>(*this); }

}  // namespace ergobench
