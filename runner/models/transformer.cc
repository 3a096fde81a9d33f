#include "runner/models/transformer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

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

torch::Tensor LabelSmoothedLossSum(const torch::Tensor& logits, const torch::Tensor& targets, double smoothing,
                                   int64_t pad) {
  const torch::Tensor log_probs = torch::log_softmax(logits.reshape({-1, logits.size(-1)}).to(torch::kFloat), -1);
  const torch::Tensor flat = targets.reshape({-1});
  const torch::Tensor nll = -log_probs.gather(1, flat.unsqueeze(1)).squeeze(1);
  const torch::Tensor smooth = -log_probs.mean(1);
  return ((1.0 - smoothing) * nll + smoothing * smooth).masked_fill(flat.eq(pad), 0).sum();
}

torch::Tensor GreedyDecode(TransformerImpl& model, const torch::Tensor& source, int64_t begin, int64_t end,
                           int64_t max_length) {
  torch::NoGradGuard no_grad;
  const torch::Tensor memory = model.Encode(source);
  torch::Tensor output = torch::full({source.size(0), 1}, begin, torch::dtype(torch::kLong).device(source.device()));
  torch::Tensor finished = torch::zeros({source.size(0)}, torch::dtype(torch::kBool).device(source.device()));
  for (int64_t step = 0; step < max_length; ++step) {
    const torch::Tensor next = model.Decode(memory, source, output).select(1, -1).argmax(-1);
    // A finished sentence gets padding after its <\s>.
    output = torch::cat({output, next.masked_fill(finished, model.config().pad).unsqueeze(1)}, 1);
    finished = finished.logical_or(next.eq(end));
    if (finished.all().item<bool>()) break;
  }
  return output.slice(1, 1);
}

namespace {

double LengthNormaliser(int64_t length, double alpha) { return std::pow((5.0 + static_cast<double>(length)) / 6.0, alpha); }

struct Hypothesis {
  std::vector<int64_t> tokens;
  double score = -std::numeric_limits<double>::infinity();  // normalised
};

}  // namespace

torch::Tensor BeamSearchDecode(TransformerImpl& model, const torch::Tensor& source, int64_t begin, int64_t end,
                               int64_t max_length, int64_t beam, double length_penalty) {
  torch::NoGradGuard no_grad;
  const int64_t batch = source.size(0);
  const auto device = source.device();
  // Every sentence's source and memory repeated for its beam: row b·beam + i is hypothesis i of b.
  const torch::Tensor sources = source.repeat_interleave(beam, 0);
  const torch::Tensor memory = model.Encode(sources);
  torch::Tensor prefixes = torch::full({batch * beam, 1}, begin, torch::dtype(torch::kLong).device(device));
  // At the start only the first hypothesis of each sentence is live, so that the beam does not
  // hold the same prefix `beam` times.
  torch::Tensor scores = torch::full({batch, beam}, -std::numeric_limits<float>::infinity(), torch::kFloat);
  scores.select(1, 0).zero_();
  std::vector<std::vector<Hypothesis>> finished(static_cast<size_t>(batch));
  std::vector<bool> done(static_cast<size_t>(batch), false);
  for (int64_t step = 1; step <= max_length; ++step) {
    const torch::Tensor log_probs =
        torch::log_softmax(model.Decode(memory, sources, prefixes).select(1, -1).to(torch::kFloat), -1).cpu();
    const torch::Tensor prefixes_here = prefixes.cpu().contiguous();
    const int64_t vocab = log_probs.size(1);
    // Each sentence's best 2·beam continuations: enough that `beam` go on after the finished.
    const torch::Tensor totals = (scores.unsqueeze(2) + log_probs.view({batch, beam, vocab})).view({batch, -1});
    const auto [best, where] = totals.topk(std::min<int64_t>(2 * beam, beam * vocab), 1);
    std::vector<int64_t> rows, tokens;
    torch::Tensor next_scores = torch::full({batch, beam}, -std::numeric_limits<float>::infinity(), torch::kFloat);
    for (int64_t b = 0; b < batch; ++b) {
      int64_t kept = 0;
      for (int64_t j = 0; j < best.size(1) && kept < beam; ++j) {
        const double total = best[b][j].item<double>();
        const int64_t hypothesis = where[b][j].item<int64_t>() / vocab, token = where[b][j].item<int64_t>() % vocab;
        if (!std::isfinite(total)) break;
        const int64_t row = b * beam + hypothesis;
        if (token == end || step == max_length) {
          if (done[static_cast<size_t>(b)]) continue;
          const int64_t* prefix = prefixes_here.data_ptr<int64_t>() + row * step;
          std::vector<int64_t> ids(prefix + 1, prefix + step);
          ids.push_back(token);
          finished[static_cast<size_t>(b)].push_back({ids, total / LengthNormaliser(step, length_penalty)});
          if (token == end) continue;
        }
        rows.push_back(row);
        tokens.push_back(token);
        next_scores[b][kept++] = total;
      }
      for (; kept < beam; ++kept) {  // too few live continuations: dead rows, scored -inf
        rows.push_back(b * beam);
        tokens.push_back(end);
      }
      done[static_cast<size_t>(b)] = finished[static_cast<size_t>(b)].size() >= static_cast<size_t>(beam);
    }
    if (std::all_of(done.begin(), done.end(), [](bool d) { return d; })) break;
    prefixes = torch::cat({prefixes.index_select(0, torch::tensor(rows).to(device)), torch::tensor(tokens).to(device).unsqueeze(1)}, 1);
    scores = next_scores;
  }
  std::vector<std::vector<int64_t>> outputs;
  int64_t longest = 1;
  for (auto& candidates : finished) {
    const auto best = std::max_element(candidates.begin(), candidates.end(),
                                       [](const Hypothesis& a, const Hypothesis& b) { return a.score < b.score; });
    outputs.push_back(best == candidates.end() ? std::vector<int64_t>{} : best->tokens);
    longest = std::max<int64_t>(longest, static_cast<int64_t>(outputs.back().size()));
  }
  torch::Tensor result = torch::full({batch, longest}, model.config().pad, torch::kLong);
  for (int64_t b = 0; b < batch; ++b) {
    for (size_t i = 0; i < outputs[static_cast<size_t>(b)].size(); ++i) result[b][static_cast<int64_t>(i)] = outputs[static_cast<size_t>(b)][i];
  }
  return result.to(device);
}

}  // namespace ergobench
