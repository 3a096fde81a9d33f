#include "runner/models/seq2seq.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <torch/torch.h>

namespace ergobench {

torch::Tensor LabelSmoothedLossSum(const torch::Tensor& logits, const torch::Tensor& targets, double smoothing,
                                   int64_t pad) {
  const torch::Tensor log_probs = torch::log_softmax(logits.reshape({-1, logits.size(-1)}).to(torch::kFloat), -1);
  const torch::Tensor flat = targets.reshape({-1});
  const torch::Tensor nll = -log_probs.gather(1, flat.unsqueeze(1)).squeeze(1);
  const torch::Tensor smooth = -log_probs.mean(1);
  return ((1.0 - smoothing) * nll + smoothing * smooth).masked_fill(flat.eq(pad), 0).sum();
}

torch::Tensor GreedyDecode(Seq2SeqModule& model, const torch::Tensor& source, const DecodeOptions& options) {
  torch::NoGradGuard no_grad;
  const std::unique_ptr<StepDecoder> decoder = model.NewStepDecoder();
  decoder->Start(source);
  torch::Tensor output =
      torch::full({source.size(0), 1}, options.begin, torch::dtype(torch::kLong).device(source.device()));
  torch::Tensor finished = torch::zeros({source.size(0)}, torch::dtype(torch::kBool).device(source.device()));
  for (int64_t step = 0; step < options.max_length; ++step) {
    const torch::Tensor next = decoder->Next(output).argmax(-1);
    // A finished sentence gets padding after its <\s>.
    output = torch::cat({output, next.masked_fill(finished, model.pad()).unsqueeze(1)}, 1);
    finished = finished.logical_or(next.eq(options.end));
    if (finished.all().item<bool>()) break;
  }
  return output.slice(1, 1);
}

namespace {

double LengthNormaliser(int64_t length, double alpha) { return std::pow((5.0 + static_cast<double>(length)) / 6.0, alpha); }

// Σ log(min(c, 1)) over the positions c > 0 of one hypothesis's accumulated attention.
double CoverageLogSum(const torch::Tensor& coverage) {
  const torch::Tensor attended = coverage.masked_select(coverage.gt(0));
  return attended.clamp_max(1.0).log().sum().item<double>();
}

struct Hypothesis {
  std::vector<int64_t> tokens;
  double score = -std::numeric_limits<double>::infinity();  // normalised
};

// Each sentence's best finished hypothesis, padded into [batch, longest].
torch::Tensor BestOfEach(const std::vector<std::vector<Hypothesis>>& finished, int64_t pad, torch::Device device) {
  std::vector<std::vector<int64_t>> outputs;
  int64_t longest = 1;
  for (const auto& candidates : finished) {
    const auto best = std::max_element(candidates.begin(), candidates.end(),
                                       [](const Hypothesis& a, const Hypothesis& b) { return a.score < b.score; });
    outputs.push_back(best == candidates.end() ? std::vector<int64_t>{} : best->tokens);
    longest = std::max<int64_t>(longest, static_cast<int64_t>(outputs.back().size()));
  }
  torch::Tensor result = torch::full({static_cast<int64_t>(finished.size()), longest}, pad, torch::kLong);
  for (size_t b = 0; b < outputs.size(); ++b) {
    for (size_t i = 0; i < outputs[b].size(); ++i) result[static_cast<int64_t>(b)][static_cast<int64_t>(i)] = outputs[b][i];
  }
  return result.to(device);
}

}  // namespace

torch::Tensor BeamSearchDecode(Seq2SeqModule& model, const torch::Tensor& source, const DecodeOptions& options) {
  torch::NoGradGuard no_grad;
  const int64_t batch = source.size(0), beam = options.beam, end = options.end;
  const auto device = source.device();
  // Every sentence's source repeated for its beam: row b·beam + i is hypothesis i of b.
  const std::unique_ptr<StepDecoder> decoder = model.NewStepDecoder();
  decoder->Start(source.repeat_interleave(beam, 0));
  torch::Tensor prefixes = torch::full({batch * beam, 1}, options.begin, torch::dtype(torch::kLong).device(device));
  // At the start only the first hypothesis of each sentence is live, so that the beam does not
  // hold the same prefix `beam` times.
  torch::Tensor scores = torch::full({batch, beam}, -std::numeric_limits<float>::infinity(), torch::kFloat);
  scores.select(1, 0).zero_();
  torch::Tensor coverage;  // [batch·beam, S]: each hypothesis's attention so far
  std::vector<std::vector<Hypothesis>> finished(static_cast<size_t>(batch));
  std::vector<bool> done(static_cast<size_t>(batch), false);
  for (int64_t step = 1; step <= options.max_length; ++step) {
    const torch::Tensor log_probs = decoder->Next(prefixes).to(torch::kFloat).cpu();
    if (options.coverage_penalty != 0 && decoder->LastAttention().defined()) {
      const torch::Tensor attention = decoder->LastAttention().to(torch::kFloat).cpu();
      coverage = coverage.defined() ? coverage + attention : attention;
    }
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
        if (token == end || step == options.max_length) {
          if (done[static_cast<size_t>(b)]) continue;
          const int64_t* prefix = prefixes_here.data_ptr<int64_t>() + row * step;
          std::vector<int64_t> ids(prefix + 1, prefix + step);
          ids.push_back(token);
          double score = total / LengthNormaliser(step, options.length_penalty);
          if (coverage.defined()) score += options.coverage_penalty * CoverageLogSum(coverage[row]);
          finished[static_cast<size_t>(b)].push_back({ids, score});
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
    const torch::Tensor chosen = torch::tensor(rows), chosen_here = chosen.to(device);
    decoder->Reorder(chosen_here);
    if (coverage.defined()) coverage = coverage.index_select(0, chosen);
    prefixes = torch::cat({prefixes.index_select(0, chosen_here), torch::tensor(tokens).to(device).unsqueeze(1)}, 1);
    scores = next_scores;
  }
  return BestOfEach(finished, model.pad(), device);
}

torch::Tensor Translate(Seq2SeqModule& model, const torch::Tensor& source, const DecodeOptions& options) {
  return options.beam == 1 ? GreedyDecode(model, source, options) : BeamSearchDecode(model, source, options);
}

}  // namespace ergobench
