// What the translation models (transformer.h for task 4b, gnmt.h for 4a) share: the interface
// the translation task trains and evaluates them through, the label-smoothed loss, and greedy
// and beam-search decoding over a model that predicts one target token at a time. Only torch
// translation units include this header.
#pragma once

#include <cstdint>
#include <memory>

#include <torch/nn/module.h>

namespace ergobench {

// A model decoding one sentence batch token by token: Start once with the sources, then Next
// for each step; beam search calls Reorder when hypotheses change rows.
class StepDecoder {
 public:
  virtual ~StepDecoder() = default;
  // source: [rows, S] ids, padded with the model's pad.
  virtual void Start(const torch::Tensor& source) = 0;
  // prefixes: [rows, t], each <s> and the tokens chosen so far. The log-probabilities of the
  // next token, [rows, vocab] float.
  virtual torch::Tensor Next(const torch::Tensor& prefixes) = 0;
  // The attention of the last Next over the source, [rows, S] summing to 1 a row, for GNMT's
  // coverage penalty; undefined where the model has no single attention.
  virtual torch::Tensor LastAttention() const { return {}; }
  // Row i of what follows continues row rows[i] of what was. Beam search keeps each sentence's
  // hypotheses in its own block of rows, so rows[i] is a row of the same sentence as i: what
  // is per sentence (the source, the encoder's output) needs no reordering, only the prefix's state.
  virtual void Reorder(const torch::Tensor& rows) = 0;
};

// An encoder-decoder translation model.
class Seq2SeqModule : public torch::nn::Module {
 public:
  // source: [batch, S] ids; target_input: [batch, T] ids (the target after <s>, shifted);
  // returns logits [batch, T, vocab].
  virtual torch::Tensor Logits(const torch::Tensor& source, const torch::Tensor& target_input) = 0;
  virtual std::unique_ptr<StepDecoder> NewStepDecoder() = 0;
  virtual int64_t pad() const = 0;
};

// fairseq's and apex's label-smoothed cross entropy, summed over the tokens that are not
// `pad`: (1 − ε)·NLL + ε·mean over the vocabulary of −log p (the target class included).
torch::Tensor LabelSmoothedLossSum(const torch::Tensor& logits, const torch::Tensor& targets, double smoothing,
                                   int64_t pad);

struct DecodeOptions {
  int64_t begin = 2, end = 3;  // <s> and <\s>
  int64_t max_length = 80;     // tokens a translation may have, <\s> included
  int64_t beam = 1;            // 1: greedy
  // GNMT's length normalisation: a finished hypothesis's summed log-probability is divided by
  // ((5 + length) / 6)^length_penalty.
  double length_penalty = 0.6;
  // GNMT's coverage penalty, added to that: coverage_penalty · Σ over source positions of
  // log(min(attention received so far, 1)), positions never attended counting 0.
  double coverage_penalty = 0;
};

// The most likely next token from <s> until <\s> or `max_length` tokens: [batch, up to
// max_length] ids, padded with the model's pad after <\s>.
torch::Tensor GreedyDecode(Seq2SeqModule& model, const torch::Tensor& source, const DecodeOptions& options);

// Beam search, as fairseq, MLPerf's and MLBench's references decode: `beam` hypotheses a
// sentence, each step extended by their best next tokens; one that emits <\s> is finished and
// scored by the length normalisation and coverage penalty above; the search stops when `beam`
// hypotheses of every sentence are finished, or at `max_length`. The best finished hypothesis
// of each sentence (the best live one where none finished), [batch, its length] ids padded
// with the model's pad, <\s> included where it ended. A beam of 1 is GreedyDecode.
torch::Tensor BeamSearchDecode(Seq2SeqModule& model, const torch::Tensor& source, const DecodeOptions& options);

// Greedy or beam search, as options.beam says.
torch::Tensor Translate(Seq2SeqModule& model, const torch::Tensor& source, const DecodeOptions& options);

}  // namespace ergobench
