// Tasks "4a" and "4b", MLBench's translation tasks: GNMT (runner/models/gnmt.h) and the
// Transformer (runner/models/transformer.h), each trained data-parallel with its reference
// recipe (translation_recipe.h): `gradientAccumulation` batches an update, the label-smoothed
// loss, Adam on the task's schedule, dynamic loss scaling at fp16. After each epoch the test
// set is translated by beam search, split across ranks, and scored by corpus BLEU as sacreBLEU
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
