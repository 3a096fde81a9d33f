// Task "4b": MLBench's translation task with the Transformer (runner/models/transformer.h),
// trained data-parallel with its reference recipe: batches of `batchTokens` padded tokens of
// sentence pairs of alike length (token_batches.h), `gradientAccumulation` of them an update
// (MLBench's update_freq, max(16 / k, 1) by default), the label-smoothed loss per target token,
// Adam on an inverse square-root schedule after a linear warm-up. After each epoch the test set
// is translated by beam search, split across ranks, and scored by corpus BLEU as sacreBLEU
// computes it (metrics/bleu.h; each rank's statistics summed, so the score is the whole test
// set's, not a mean of parts); the run ends at the BLEU goal or after maxEpochs. The data is a
// folder in the WMT16 text layout (data/parallel_corpus.h), or the synthetic language pair
// (data/synthetic_translation.h), whose goal a word-for-word gloss cannot reach.
#pragma once

#include <memory>

#include "runner/tasks/task.h"

namespace ergobench {

std::unique_ptr<Task> NewTranslationTask();

}  // namespace ergobench
