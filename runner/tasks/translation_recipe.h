// The recipes of MLBench's translation tasks, read from a Benchmark's defaulted
// hyperparameters (api/v1alpha1/catalog.cc holds the defaults):
//   4a, GNMT on WMT16: batches of `batchSize` random sentence pairs, the loss per sentence with
//      the gradients summed over workers (MLBench's denominator 1), Adam (0.9, 0.999, 1e-8),
//      exponential warm-up then step decay (lr_schedule.h's StepDecayLr), gradients clipped at
//      norm 5, beam search of 5 with a coverage penalty;
//   4b, the Transformer on WMT17: batches of `batchTokens` padded tokens of pairs alike in
//      length, the loss per target token averaged over workers, Adam (0.9, 0.98, 1e-9), linear
//      warm-up then inverse square root, beam search of 4.
// Both: `gradientAccumulation` batches an update (MLBench's update_freq, max(16 / k, 1) by
// default), label smoothing, dynamic loss scaling at fp16, BLEU as the goal. Nothing here
// depends on torch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/v1alpha1/benchmark.h"
#include "base/status.h"
#include "runner/data/parallel_corpus.h"
#include "runner/train/loss_scaler.h"

namespace ergobench {

struct TranslationRecipe {
  bool gnmt = false;  // task 4a; else 4b's Transformer
  // The model: `dim` is GNMT's hidden size; `ffn` and `heads` are the Transformer's only.
  int64_t dim = 0, ffn = 0, heads = 0, layers = 0;
  double dropout = 0;
  // A micro-batch: 4a's `batch_sentences` pairs, 4b's `batch_tokens` padded tokens.
  int64_t batch_sentences = 0, batch_tokens = 0;
  int64_t accumulation = 0;
  double lr = 0;
  int64_t lr_warmup = 0;
  // 4a's step decay, as fractions of the run's updates: the first at `lr_decay_start`, then
  // every `lr_decay_interval`, at most `lr_decays` times, each × `lr_decay_factor`.
  double lr_decay_start = 0, lr_decay_interval = 0, lr_decay_factor = 0;
  int64_t lr_decays = 0;
  double beta1 = 0, beta2 = 0, epsilon = 0;
  double grad_clip = 0;  // 0: none
  double smoothing = 0;
  int64_t max_length = 0, test_max_length = 0;  // tokens a side may have; longer pairs are left out
  std::string precision;                         // as written: auto, fp32, bf16 or fp16
  LossScalerOptions loss_scaling;
  int64_t beam = 0;
  double length_penalty = 0, coverage_penalty = 0;
  int64_t eval_sentences = 0;  // 0: the whole test set
  std::string target_language;
  bool wmt17 = false;  // corpusFormat: fairseq's binary files, not text; `train` and `test`
                       // then name their prefixes, without .idx and .bin
  ParallelCorpusOptions train, test;
  std::string vocab_file;
  bool synthetic = false;
  int64_t synthetic_sentences = 0, synthetic_test_sentences = 0;
  int64_t synthetic_nouns = 0, synthetic_clauses = 0;
  int64_t seed = 0;
  int64_t throughput_warmup = 0;
  int64_t max_epochs = 0;
  std::optional<double> goal;  // BLEU
};

// The recipe of task 4a or 4b for `world_size` workers; InvalidArgument naming the field where
// a value does not fit the model (heads that do not divide dim) or a key is missing.
StatusOr<TranslationRecipe> ReadTranslationRecipe(const BenchmarkSpec& spec, int world_size);

}  // namespace ergobench
