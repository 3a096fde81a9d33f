#include "runner/tasks/translation_recipe.h"

#include <algorithm>
#include <filesystem>

#include "runner/train/recipe_reader.h"

namespace ergobench {
namespace {

// What only one of the two models and its schedule read.
void ReadModelAndSchedule(RecipeReader& read, TranslationRecipe* r) {
  r->layers = read.Int("layers");
  r->dropout = read.Number("dropout");
  if (r->gnmt) {
    r->dim = read.Int("hidden");
    r->batch_sentences = read.Int("batchSize");
    r->lr_decay_start = read.Number("lrDecayStart");
    r->lr_decay_interval = read.Number("lrDecayInterval");
    r->lr_decays = read.Int("lrDecaySteps");
    r->lr_decay_factor = read.Number("lrDecayFactor");
    r->grad_clip = read.Number("gradClip");
    r->loss_scaling.max_scale = read.Number("lossScaleMax");
    r->coverage_penalty = read.Number("coveragePenalty");
  } else {
    r->dim = read.Int("dim");
    r->ffn = read.Int("ffn");
    r->heads = read.Int("heads");
    r->batch_tokens = read.Int("batchTokens");
  }
}

}  // namespace

StatusOr<TranslationRecipe> ReadTranslationRecipe(const BenchmarkSpec& spec, int world_size) {
  RecipeReader read(spec.hyperparameters);
  TranslationRecipe r;
  r.gnmt = spec.task == "4a";
  ReadModelAndSchedule(read, &r);
  r.accumulation = read.Int("gradientAccumulation");
  if (r.accumulation == 0) r.accumulation = std::max(16 / world_size, 1);
  r.lr = read.Number("learningRate");
  r.lr_warmup = read.Int("lrWarmupSteps");
  r.beta1 = read.Number("beta1");
  r.beta2 = read.Number("beta2");
  r.epsilon = read.Number("epsilon");
  r.smoothing = read.Number("labelSmoothing");
  r.max_length = read.Int("maxLength");
  r.test_max_length = read.Int("testMaxLength");
  r.precision = read.String("precision");
  r.loss_scaling.initial_scale = read.Number("lossScale");
  r.loss_scaling.window = read.Int("lossScaleWindow");
  r.beam = read.Int("beam");
  r.length_penalty = read.Number("lengthPenalty");
  r.eval_sentences = read.Int("evalSentences");
  const std::filesystem::path folder = spec.dataset.path;
  const std::string source = read.String("sourceLanguage"), target = read.String("targetLanguage");
  const std::string train = read.String("trainPrefix"), test = read.String("testPrefix");
  r.wmt17 = read.String("corpusFormat") == "wmt17";
  r.target_language = target;
  r.vocab_file = (folder / read.String("vocabFile")).string();
  r.synthetic_sentences = read.Int("syntheticSentences");
  r.synthetic_test_sentences = read.Int("syntheticTestSentences");
  r.synthetic_nouns = read.Int("syntheticNouns");
  r.synthetic_clauses = read.Int("syntheticClauses");
  r.seed = read.Int("seed");
  r.throughput_warmup = read.Int("warmupSteps");
  RETURN_IF_ERROR(read.status());
  r.synthetic = spec.dataset.source == "synthetic";
  // wmt16: train.tok.clean.bpe.32000.en; wmt17: train.en-de.en (.idx and .bin).
  const std::string infix = r.wmt17 ? "." + source + "-" + target + "." : ".";
  r.train = {(folder / (train + infix + source)).string(), (folder / (train + infix + target)).string(), r.max_length};
  r.test = {(folder / (test + infix + source)).string(), (folder / (test + infix + target)).string(), r.test_max_length};
  if (!r.gnmt && r.dim % r.heads != 0) {
    return Status::InvalidArgument("spec.hyperparameters.heads: " + std::to_string(r.heads) +
                                   " heads do not divide dim " + std::to_string(r.dim));
  }
  if (r.gnmt && r.layers < 2) {
    return Status::InvalidArgument("spec.hyperparameters.layers: GNMT needs at least 2 (its bidirectional layer and "
                                   "one after it), not " + std::to_string(r.layers));
  }
  r.max_epochs = spec.max_epochs.value_or(1);
  if (spec.goal) r.goal = spec.goal->target;  // synthetic pairs have a BLEU to reach too
  return r;
}

}  // namespace ergobench
