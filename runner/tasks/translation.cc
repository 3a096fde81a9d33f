#include "runner/tasks/translation.h"

#include <torch/torch.h>

#include <cstdio>
#include <filesystem>

#include "base/units.h"
#include "runner/data/parallel_corpus.h"
#include "runner/data/shard.h"
#include "runner/data/synthetic_translation.h"
#include "runner/data/token_batches.h"
#include "runner/dist/communicator.h"
#include "runner/metrics/bleu.h"
#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/models/transformer.h"
#include "runner/progress_writer.h"
#include "runner/train/training_device.h"
#include "runner/train/lr_schedule.h"
#include "runner/train/recipe_reader.h"
#include "runner/train/training_loop.h"

namespace ergobench {
namespace {

struct TranslationRecipe {
  TransformerConfig model;
  int64_t batch_tokens = 0;
  int64_t accumulation = 0;
  double lr = 0;
  int64_t lr_warmup = 0;
  double beta1 = 0, beta2 = 0, epsilon = 0;
  double smoothing = 0;
  int64_t max_length = 0;
  std::string precision;
  LossScalerOptions loss_scaling;
  int64_t beam = 0;
  double length_penalty = 0;
  int64_t eval_sentences = 0;
  ParallelCorpusOptions train, test;
  std::string vocab_file;
  bool synthetic = false;
  int64_t synthetic_sentences = 0, synthetic_test_sentences = 0;
  int64_t seed = 0;
  int64_t throughput_warmup = 0;
  int64_t max_epochs = 0;
  std::optional<double> goal;  // BLEU
  GradientSyncOptions sync;
};

StatusOr<TranslationRecipe> ReadTranslationRecipe(const BenchmarkSpec& spec, int world_size) {
  RecipeReader read(spec.hyperparameters);
  TranslationRecipe r;
  r.model.dim = read.Int("dim");
  r.model.ffn = read.Int("ffn");
  r.model.heads = read.Int("heads");
  r.model.encoder_layers = r.model.decoder_layers = read.Int("layers");
  r.model.dropout = r.model.attention_dropout = r.model.relu_dropout = read.Number("dropout");
  r.batch_tokens = read.Int("batchTokens");
  r.accumulation = read.Int("gradientAccumulation");
  if (r.accumulation == 0) r.accumulation = std::max(16 / world_size, 1);
  r.lr = read.Number("learningRate");
  r.lr_warmup = read.Int("lrWarmupSteps");
  r.beta1 = read.Number("beta1");
  r.beta2 = read.Number("beta2");
  r.epsilon = read.Number("epsilon");
  r.smoothing = read.Number("labelSmoothing");
  r.max_length = read.Int("maxLength");
  r.precision = read.String("precision");
  r.loss_scaling.initial_scale = read.Number("lossScale");
  r.loss_scaling.window = read.Int("lossScaleWindow");
  r.beam = read.Int("beam");
  r.length_penalty = read.Number("lengthPenalty");
  r.eval_sentences = read.Int("evalSentences");
  const std::filesystem::path folder = spec.dataset.path;
  const std::string source = read.String("sourceLanguage"), target = read.String("targetLanguage");
  const std::string train = read.String("trainPrefix"), test = read.String("testPrefix");
  r.vocab_file = (folder / read.String("vocabFile")).string();
  r.synthetic_sentences = read.Int("syntheticSentences");
  r.synthetic_test_sentences = read.Int("syntheticTestSentences");
  r.seed = read.Int("seed");
  r.throughput_warmup = read.Int("warmupSteps");
  r.sync = ReadGradientSyncOptions(read);
  RETURN_IF_ERROR(read.status());
  r.synthetic = spec.dataset.source == "synthetic";
  r.train = {(folder / (train + "." + source)).string(), (folder / (train + "." + target)).string(), r.max_length};
  r.test = {(folder / (test + "." + source)).string(), (folder / (test + "." + target)).string(), r.max_length};
  // A sentence, its <s> or <\s>, and the one more step decoding may take.
  r.model.max_positions = r.max_length + 2;
  if (r.model.dim % r.model.heads != 0) {
    return Status::InvalidArgument("spec.hyperparameters.heads: " + std::to_string(r.model.heads) +
                                   " heads do not divide dim " + std::to_string(r.model.dim));
  }
  if (spec.device != "cpu") {
    return Status::InvalidArgument("spec.device: task " + spec.task + " trains on the CPU only in this version");
  }
  ASSIGN_OR_RETURN(r.precision, ResolvePrecision(r.precision, torch::kCPU));
  r.max_epochs = spec.max_epochs.value_or(1);
  if (spec.goal) r.goal = spec.goal->target;  // synthetic pairs have a BLEU to reach too
  return r;
}

// The first `count` pairs of the synthetic pair's corpus from `first`, as ids.
ParallelCorpus SyntheticPairs(const SyntheticLanguagePair& language, const Vocabulary& vocabulary, uint64_t first,
                              int64_t count, int64_t max_length) {
  ParallelCorpus corpus;
  for (int64_t i = 0; i < count; ++i) {
    const SyntheticLanguagePair::Pair sentence = language.Sentence(first + static_cast<uint64_t>(i));
    corpus.Add(vocabulary.Encode(sentence.source), vocabulary.Encode(sentence.target), max_length);
  }
  return corpus;
}

// A batch of pairs as the model's tensors, padded at the end with <pad>: the source with <\s>,
// the decoder's input from <s>, and the targets it is scored against, ending in <\s>.
struct Batch {
  torch::Tensor source, target_input, target_output;
  int64_t target_tokens = 0;  // each sentence's and its <\s>, not the padding
  int64_t source_tokens = 0;
};

Batch MakeBatch(const ParallelCorpus& corpus, const std::vector<int64_t>& pairs) {
  int64_t source_length = 0, target_length = 0;
  for (const int64_t p : pairs) {
    source_length = std::max(source_length, corpus.source.offsets[p + 1] - corpus.source.offsets[p] + 1);
    target_length = std::max(target_length, corpus.target.offsets[p + 1] - corpus.target.offsets[p] + 1);
  }
  const auto n = static_cast<int64_t>(pairs.size());
  Batch batch{torch::full({n, source_length}, Vocabulary::kPad, torch::kLong),
              torch::full({n, target_length}, Vocabulary::kPad, torch::kLong),
              torch::full({n, target_length}, Vocabulary::kPad, torch::kLong), 0, 0};
  for (int64_t row = 0; row < n; ++row) {
    const int64_t p = pairs[static_cast<size_t>(row)];
    int64_t* source = batch.source[row].data_ptr<int64_t>();
    int64_t* input = batch.target_input[row].data_ptr<int64_t>();
    int64_t* output = batch.target_output[row].data_ptr<int64_t>();
    const int64_t s0 = corpus.source.offsets[p], s1 = corpus.source.offsets[p + 1];
    for (int64_t i = s0; i < s1; ++i) source[i - s0] = corpus.source.tokens[static_cast<size_t>(i)];
    source[s1 - s0] = Vocabulary::kEnd;
    batch.source_tokens += s1 - s0 + 1;
    const int64_t t0 = corpus.target.offsets[p], t1 = corpus.target.offsets[p + 1];
    input[0] = Vocabulary::kBegin;
    for (int64_t i = t0; i < t1; ++i) input[i - t0 + 1] = output[i - t0] = corpus.target.tokens[static_cast<size_t>(i)];
    output[t1 - t0] = Vocabulary::kEnd;
    batch.target_tokens += t1 - t0 + 1;
  }
  return batch;
}

std::vector<int32_t> Ids(const torch::Tensor& row) {
  const torch::Tensor ids = row.to(torch::kCPU, torch::kInt).contiguous();
  return {ids.data_ptr<int32_t>(), ids.data_ptr<int32_t>() + ids.numel()};
}

class TranslationTrainee : public Trainee {
 public:
  TranslationTrainee(TaskContext& context, TranslationRecipe recipe)
      : context_(context), comm_(context.communicator), recipe_(std::move(recipe)) {}

  int64_t seed() const override { return recipe_.seed; }
  int64_t throughput_warmup_steps() const override { return recipe_.throughput_warmup; }
  const GradientSyncOptions& sync_options() const override { return recipe_.sync; }
  bool has_goal() const override { return recipe_.goal.has_value(); }

  void LogRecipe(MlLog& mllog) override {
    mllog.Point("submission_benchmark", "4b");
    mllog.Point("seed", recipe_.seed);
    mllog.Point("global_batch_size", recipe_.batch_tokens * recipe_.accumulation * comm_.world_size());
    mllog.Point("gradient_accumulation_steps", recipe_.accumulation);
    mllog.Point("opt_base_learning_rate", recipe_.lr);
    mllog.Point("opt_learning_rate_warmup_steps", recipe_.lr_warmup);
    mllog.Point("opt_adam_beta_1", recipe_.beta1);
    mllog.Point("opt_adam_beta_2", recipe_.beta2);
    mllog.Point("opt_adam_epsilon", recipe_.epsilon);
    mllog.Point("max_sequence_length", recipe_.max_length);
  }

  // The vocabulary first: the model's embedding is as large as it.
  StatusOr<BuiltModel> BuildModel() override {
    if (recipe_.synthetic) {
      SyntheticPairOptions options;
      options.seed = static_cast<uint64_t>(recipe_.seed);
      ASSIGN_OR_RETURN(SyntheticLanguagePair language, SyntheticLanguagePair::Create(options));
      std::vector<std::string> words = language.SourceWords();
      for (const std::string& word : language.TargetWords()) words.push_back(word);
      ASSIGN_OR_RETURN(vocabulary_, Vocabulary::FromWords(words));
      language_.emplace(std::move(language));
    } else {
      ASSIGN_OR_RETURN(vocabulary_, Vocabulary::FromFile(recipe_.vocab_file));
    }
    TransformerConfig config = recipe_.model;
    config.vocab_size = vocabulary_->size();
    config.pad = Vocabulary::kPad;
    model_ = Transformer(config);
    std::vector<torch::Tensor> params = model_->parameters();
    return BuiltModel{params, {params}, {}};
  }

  std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(GradientSync& sync) override {
    return std::make_unique<torch::optim::Adam>(
        sync.OptimizerGroups().front(),
        torch::optim::AdamOptions(recipe_.lr).betas({recipe_.beta1, recipe_.beta2}).eps(recipe_.epsilon));
  }

  // The pairs, read after run_start (time to the goal counts it), batched by tokens; every rank
  // makes the same batches and takes every k-th.
  StatusOr<TrainingPlan> Load() override {
    if (language_) {
      train_ = SyntheticPairs(*language_, *vocabulary_, 0, recipe_.synthetic_sentences, recipe_.max_length);
      // Test sentences from far along the pair's corpus: none of the training ones by index.
      test_ = SyntheticPairs(*language_, *vocabulary_, uint64_t{1} << 40, recipe_.synthetic_test_sentences,
                             recipe_.max_length);
    } else {
      ASSIGN_OR_RETURN(train_, ReadParallelCorpus(recipe_.train, *vocabulary_));
      ASSIGN_OR_RETURN(test_, ReadParallelCorpus(recipe_.test, *vocabulary_));
    }
    std::vector<int64_t> source_lengths, target_lengths;
    for (int64_t i = 0; i < train_.size(); ++i) {
      source_lengths.push_back(train_.source.offsets[i + 1] - train_.source.offsets[i] + 1);
      target_lengths.push_back(train_.target.offsets[i + 1] - train_.target.offsets[i] + 1);
    }
    batches_ = TokenBatches(source_lengths, target_lengths, recipe_.batch_tokens, static_cast<uint64_t>(recipe_.seed));
    const int64_t per_rank = static_cast<int64_t>(batches_.size()) / comm_.world_size();
    steps_per_epoch_ = per_rank / recipe_.accumulation;
    if (steps_per_epoch_ == 0) {
      return Status::InvalidArgument("spec.hyperparameters.batchTokens: " + std::to_string(train_.size()) +
                                     " training pairs make " + std::to_string(batches_.size()) + " batches of " +
                                     std::to_string(recipe_.batch_tokens) + " tokens, fewer than " +
                                     std::to_string(recipe_.accumulation) + " a step for each of " +
                                     std::to_string(comm_.world_size()) + " workers");
    }
    const int64_t test_count = recipe_.eval_sentences > 0 ? std::min(recipe_.eval_sentences, test_.size()) : test_.size();
    if (test_count == 0) return Status::InvalidArgument(recipe_.test.source_path + ": no test pair of at most maxLength tokens");
    test_count_ = test_count;
    context_.mllog.Point("train_samples", train_.size());
    context_.mllog.Point("eval_samples", test_count_);
    return TrainingPlan{steps_per_epoch_, steps_per_epoch_ * recipe_.max_epochs};
  }

  void BeginEpoch(int64_t epoch) override {
    context_.mllog.Start("epoch_start", {{"epoch_num", epoch}});
    epoch_ = epoch;
    order_ = EpochPermutation(static_cast<int64_t>(batches_.size()), epoch, static_cast<uint64_t>(recipe_.seed));
    model_->train();
    epoch_loss_ = 0;
  }

  double LearningRate(int64_t update) const override { return InverseSqrtLr(update, recipe_.lr_warmup, recipe_.lr); }

  // The step's micro-batches are this rank's next `accumulation` batches; each one's loss is its
  // share of the mean over the step's target tokens.
  StepWork WorkOf(int64_t step) override {
    const int64_t first = (step % steps_per_epoch_) * recipe_.accumulation;
    step_batches_.clear();
    int64_t tokens = 0, source_tokens = 0, sentences = 0;
    for (int64_t micro = 0; micro < recipe_.accumulation; ++micro) {
      const int64_t index = order_[static_cast<size_t>((first + micro) * comm_.world_size() + comm_.rank())];
      step_batches_.push_back(MakeBatch(train_, batches_[static_cast<size_t>(index)]));
      tokens += step_batches_.back().target_tokens;
      source_tokens += step_batches_.back().source_tokens;
      sentences += step_batches_.back().source.size(0);
    }
    step_tokens_ = tokens;
    step_source_tokens_ = source_tokens;
    StepWork work;
    work.micro_batches = recipe_.accumulation;
    work.samples = sentences;
    work.load = [](int64_t) { return Status::Ok(); };
    work.loss = [this](int64_t micro) {
      const Batch& batch = step_batches_[static_cast<size_t>(micro)];
      torch::Tensor logits;
      {
        Autocast autocast(torch::kCPU, recipe_.precision);
        logits = model_->forward(batch.source, batch.target_input);
      }
      return LabelSmoothedLossSum(logits, batch.target_output, recipe_.smoothing, Vocabulary::kPad) /
             static_cast<double>(step_tokens_);
    };
    return work;
  }

  bool AfterStep(int64_t step, double loss) override {
    context_.metrics.AddTokens(static_cast<double>(step_tokens_));
    tokens_ += step_tokens_;
    source_tokens_ += step_source_tokens_;
    if (step >= recipe_.throughput_warmup) {  // the run clock's throughput window
      window_tokens_ += step_tokens_;
      window_source_tokens_ += step_source_tokens_;
    }
    epoch_loss_ += loss;
    const int64_t done = step % steps_per_epoch_ + 1;
    if (done % std::max<int64_t>(1, steps_per_epoch_ / 10) == 0) context_.progress.Report(Progress(done));
    return done == steps_per_epoch_;
  }

  void EndEpoch(int64_t epoch) override { context_.mllog.Stop("epoch_stop", {{"epoch_num", epoch}}); }

  StatusOr<bool> Evaluate(int64_t step, const RunClock& clock) override {
    context_.metrics.SetTrainLoss(epoch_loss_ / static_cast<double>(steps_per_epoch_));
    ASSIGN_OR_RETURN(bleu_, TestBleu());
    context_.metrics.SetEvalBleu(*bleu_);
    context_.mllog.Point("eval_accuracy", *bleu_, {{"epoch_num", epoch_}});
    context_.progress.Report(Progress(steps_per_epoch_));
    if (comm_.rank() == 0) {
      std::printf("[4b] epoch %lld: train loss %.4f, BLEU %.2f, lr %.3g, %s\n", static_cast<long long>(epoch_),
                  epoch_loss_ / static_cast<double>(steps_per_epoch_), *bleu_, LearningRate(step + 1),
                  FormatSeconds(clock.Elapsed()).c_str());
      std::fflush(stdout);
    }
    return recipe_.goal && *bleu_ >= *recipe_.goal;
  }

  // MLBench's columns for translation: BLEU, and tokens/s on either side over the throughput window.
  void Finish(const RunClock& clock, Figures* figures) override {
    TranslationSummary summary;
    summary.bleu = bleu_;
    summary.source_tokens = source_tokens_;
    summary.target_tokens = tokens_;
    if (clock.window_seconds() > 0) {
      summary.source_tokens_per_second = static_cast<double>(window_source_tokens_) / clock.window_seconds();
      summary.target_tokens_per_second = static_cast<double>(window_tokens_) / clock.window_seconds();
    }
    summary.precision = recipe_.precision;
    summary.beam = recipe_.beam;
    figures->translation = summary;
  }

  std::string Summary(const Figures& figures) const override {
    std::string line = "BLEU " + FormatFixed(bleu_.value_or(0), 2) + " after " + std::to_string(epoch_) + " epochs";
    if (recipe_.goal) {
      line += figures.goal_reached.value_or(false) ? ", goal reached in " + FormatSeconds(*figures.time_to_accuracy_seconds)
                                             : ", goal not reached";
    }
    return line + ", " + FormatFixed(figures.translation->target_tokens_per_second, 0) + " target tokens/s/rank, " +
           FormatFixed(figures.samples_per_second.value_or(0), 1) + " sentences/s/rank, communication " +
           FormatFixed(100 * figures.communication_ratio.value_or(0), 1) + "%";
  }

 private:
  ProgressEvent Progress(int64_t done) const {
    ProgressEvent event;
    event.stage = "run";
    event.epoch = epoch_;
    event.done = done;
    event.total = steps_per_epoch_;
    event.loss = epoch_loss_ / static_cast<double>(std::max<int64_t>(done, 1));
    event.metric = "bleu";
    event.value = bleu_;
    return event;
  }

  // Corpus BLEU of the test set: each rank translates its slice, and the statistics of all are
  // summed, which gives the whole set's score.
  StatusOr<double> TestBleu() {
    torch::NoGradGuard no_grad;
    model_->eval();
    const int64_t k = comm_.world_size();
    const int64_t begin = test_count_ * comm_.rank() / k, end = test_count_ * (comm_.rank() + 1) / k;
    BleuStatistics statistics;
    statistics.matches.assign(4, 0);
    statistics.totals.assign(4, 0);
    constexpr int64_t kSentences = 64;
    for (int64_t start = begin; start < end; start += kSentences) {
      std::vector<int64_t> pairs;
      for (int64_t p = start; p < std::min(end, start + kSentences); ++p) pairs.push_back(p);
      const Batch batch = MakeBatch(test_, pairs);
      const int64_t longest = std::min(batch.source.size(1) + 50, recipe_.max_length + 1);
      const torch::Tensor output =
          recipe_.beam == 1 ? GreedyDecode(*model_, batch.source, Vocabulary::kBegin, Vocabulary::kEnd, longest)
                            : BeamSearchDecode(*model_, batch.source, Vocabulary::kBegin, Vocabulary::kEnd, longest,
                                               recipe_.beam, recipe_.length_penalty);
      for (int64_t row = 0; row < output.size(0); ++row) {
        const std::string hypothesis = vocabulary_->Decode(Ids(output[row]));
        const std::string reference = vocabulary_->Decode(test_.target.Sentence(pairs[static_cast<size_t>(row)]));
        statistics += SegmentBleuStatistics(hypothesis, {reference});
      }
    }
    std::vector<double> sums = {static_cast<double>(statistics.hypothesis_length),
                                static_cast<double>(statistics.reference_length)};
    for (size_t n = 0; n < 4; ++n) sums.insert(sums.end(), {static_cast<double>(statistics.matches[n]),
                                                            static_cast<double>(statistics.totals[n])});
    RETURN_IF_ERROR(comm_.AllReduce(sums.data(), sums.size(), DType::kFloat64, ReduceOp::kSum));
    BleuStatistics all{static_cast<int64_t>(sums[0]), static_cast<int64_t>(sums[1]), {}, {}};
    for (size_t n = 0; n < 4; ++n) {
      all.matches.push_back(static_cast<int64_t>(sums[2 + 2 * n]));
      all.totals.push_back(static_cast<int64_t>(sums[3 + 2 * n]));
    }
    return ScoreBleu(all).score;
  }

  TaskContext& context_;
  Communicator& comm_;
  const TranslationRecipe recipe_;
  std::optional<Vocabulary> vocabulary_;
  std::optional<SyntheticLanguagePair> language_;
  Transformer model_{nullptr};
  ParallelCorpus train_, test_;
  std::vector<std::vector<int64_t>> batches_;
  std::vector<int64_t> order_;  // of the batches, this epoch
  std::vector<Batch> step_batches_;
  int64_t step_tokens_ = 0;  // target tokens, the loss's denominator
  int64_t step_source_tokens_ = 0;
  int64_t tokens_ = 0;       // target tokens over the run
  int64_t source_tokens_ = 0;
  int64_t window_tokens_ = 0;  // in the throughput window
  int64_t window_source_tokens_ = 0;
  int64_t test_count_ = 0;
  int64_t steps_per_epoch_ = 0;
  int64_t epoch_ = 0;
  double epoch_loss_ = 0;
  std::optional<double> bleu_;
};

class TranslationTask : public Task {
 public:
  StatusOr<TaskOutcome> Run(TaskContext& context) override {
    ASSIGN_OR_RETURN(TranslationRecipe recipe,
                     ReadTranslationRecipe(context.benchmark.spec, context.communicator.world_size()));
    TranslationTrainee trainee(context, std::move(recipe));
    return RunTrainingLoop(context, trainee);
  }
};

}  // namespace

std::unique_ptr<Task> NewTranslationTask() { return std::make_unique<TranslationTask>(); }

}  // namespace ergobench
