#include "runner/tasks/translation.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "base/units.h"
#include "runner/data/parallel_corpus.h"
#include "runner/data/shard.h"
#include "runner/data/synthetic_translation.h"
#include "runner/data/token_batches.h"
#include "runner/data/wmt17_corpus.h"
#include "runner/dist/communicator.h"
#include "runner/metrics/bleu.h"
#include "runner/metrics/mllog.h"
#include "runner/metrics/moses_detokenizer.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/models/gnmt.h"
#include "runner/models/transformer.h"
#include "runner/progress_writer.h"
#include "runner/tasks/translation_recipe.h"
#include "runner/train/lr_schedule.h"
#include "runner/train/multi_tensor_adam.h"
#include "runner/train/recipe_reader.h"
#include "runner/train/training_device.h"
#include "runner/train/training_loop.h"

namespace ergobench {
namespace {

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

// Task 4a's GNMT or 4b's Transformer, over a vocabulary of `vocab` tokens.
std::shared_ptr<Seq2SeqModule> NewModel(const TranslationRecipe& r, int64_t vocab) {
  if (r.gnmt) {
    GnmtConfig c;
    c.vocab_size = vocab;
    c.hidden = r.dim;
    c.layers = r.layers;
    c.dropout = r.dropout;
    c.pad = Vocabulary::kPad;
    return Gnmt(c).ptr();
  }
  TransformerConfig c;
  c.vocab_size = vocab;
  c.dim = r.dim;
  c.ffn = r.ffn;
  c.heads = r.heads;
  c.encoder_layers = c.decoder_layers = r.layers;
  c.dropout = c.attention_dropout = c.relu_dropout = r.dropout;
  // A sentence, its <s> or <\s>, and the one more step decoding may take.
  c.max_positions = std::max(r.max_length, r.test_max_length) + 2;
  c.pad = Vocabulary::kPad;
  return Transformer(c).ptr();
}

// A batch of pairs as the model's tensors, padded at the end with <pad>: the source with <\s>,
// the decoder's input from <s>, and the targets it is scored against, ending in <\s>.
struct Batch {
  torch::Tensor source, target_input, target_output;
  int64_t target_tokens = 0;  // each sentence's and its <\s>, not the padding
  int64_t source_tokens = 0;
};

Batch MakeBatch(const ParallelCorpus& corpus, const std::vector<int64_t>& pairs, torch::Device device) {
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
  if (!device.is_cpu()) {
    for (torch::Tensor* t : {&batch.source, &batch.target_input, &batch.target_output}) *t = t->to(device);
  }
  return batch;
}

// 4a's batches of an epoch: the pairs in the epoch's seeded order, `size` at a time (the last
// partial batch left out, so that every rank takes as many).
std::vector<std::vector<int64_t>> SentenceBatches(int64_t pairs, int64_t size, int64_t epoch, uint64_t seed) {
  const std::vector<int64_t> order = EpochPermutation(pairs, epoch, seed);
  std::vector<std::vector<int64_t>> batches;
  for (int64_t start = 0; start + size <= pairs; start += size) {
    batches.emplace_back(order.begin() + start, order.begin() + start + size);
  }
  return batches;
}

std::vector<int32_t> Ids(const torch::Tensor& row) {
  const torch::Tensor ids = row.to(torch::kCPU, torch::kInt).contiguous();
  return {ids.data_ptr<int32_t>(), ids.data_ptr<int32_t>() + ids.numel()};
}

// Settings the recipe does not hold: where it trains, in what precision, and how gradients sync.
struct TranslationSetup {
  TranslationRecipe recipe;
  torch::Device device = torch::kCPU;
  std::string precision;  // resolved
  GradientSyncOptions sync;
};

class TranslationTrainee : public Trainee {
 public:
  TranslationTrainee(TaskContext& context, TranslationSetup setup)
      : context_(context), comm_(context.communicator), recipe_(std::move(setup.recipe)), device_(setup.device),
        precision_(std::move(setup.precision)), sync_options_(std::move(setup.sync)) {}

  int64_t seed() const override { return recipe_.seed; }
  int64_t throughput_warmup_steps() const override { return recipe_.throughput_warmup; }
  const GradientSyncOptions& sync_options() const override { return sync_options_; }
  std::optional<GoalTrend> goal() const override {
    return recipe_.goal ? std::optional(GoalTrend{*recipe_.goal, true}) : std::nullopt;
  }
  torch::Device device() const override { return device_; }
  std::string precision() const override { return precision_; }
  std::optional<LossScalerOptions> loss_scaling() const override {
    return precision_ == "fp16" ? std::optional(recipe_.loss_scaling) : std::nullopt;
  }

  void LogRecipe(MlLog& mllog) override {
    mllog.Point("submission_benchmark", task());
    mllog.Point("seed", recipe_.seed);
    mllog.Point("global_batch_size", (recipe_.gnmt ? recipe_.batch_sentences : recipe_.batch_tokens) *
                                         recipe_.accumulation * comm_.world_size());
    mllog.Point("gradient_accumulation_steps", recipe_.accumulation);
    mllog.Point("opt_base_learning_rate", recipe_.lr);
    mllog.Point("opt_learning_rate_warmup_steps", recipe_.lr_warmup);
    mllog.Point("opt_adam_beta_1", recipe_.beta1);
    mllog.Point("opt_adam_beta_2", recipe_.beta2);
    mllog.Point("opt_adam_epsilon", recipe_.epsilon);
    if (recipe_.grad_clip > 0) mllog.Point("opt_gradient_clip_norm", recipe_.grad_clip);
    mllog.Point("max_sequence_length", recipe_.max_length);
  }

  // The vocabulary first: the model's embedding is as large as it.
  StatusOr<BuiltModel> BuildModel() override {
    if (recipe_.synthetic) {
      SyntheticPairOptions options;
      options.seed = static_cast<uint64_t>(recipe_.seed);
      options.nouns = static_cast<int>(recipe_.synthetic_nouns);
      options.max_clauses = static_cast<int>(recipe_.synthetic_clauses);
      ASSIGN_OR_RETURN(SyntheticLanguagePair language, SyntheticLanguagePair::Create(options));
      std::vector<std::string> words = language.SourceWords();
      for (const std::string& word : language.TargetWords()) words.push_back(word);
      ASSIGN_OR_RETURN(vocabulary_, Vocabulary::FromWords(words));
      language_.emplace(std::move(language));
    } else {
      ASSIGN_OR_RETURN(vocabulary_, recipe_.wmt17 ? ReadWmt17Dictionary(recipe_.vocab_file)
                                                  : Vocabulary::FromFile(recipe_.vocab_file));
    }
    model_ = NewModel(recipe_, vocabulary_->size());
    model_->to(device_);
    std::vector<torch::Tensor> params = model_->parameters();
    return BuiltModel{params, {params}, {}};
  }

  std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(GradientSync& sync) override {
    sync_ = &sync;
    return std::make_unique<MultiTensorAdam>(
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
                             recipe_.test_max_length);
    } else {
      ASSIGN_OR_RETURN(train_, ReadCorpus(recipe_.train));
      ASSIGN_OR_RETURN(test_, ReadCorpus(recipe_.test));
    }
    int64_t batches = 0;
    if (recipe_.gnmt) {
      batches = train_.size() / recipe_.batch_sentences;
    } else {
      std::vector<int64_t> source_lengths, target_lengths;
      for (int64_t i = 0; i < train_.size(); ++i) {
        source_lengths.push_back(train_.source.offsets[i + 1] - train_.source.offsets[i] + 1);
        target_lengths.push_back(train_.target.offsets[i + 1] - train_.target.offsets[i] + 1);
      }
      batches_ = TokenBatches(source_lengths, target_lengths, recipe_.batch_tokens, static_cast<uint64_t>(recipe_.seed));
      batches = static_cast<int64_t>(batches_.size());
    }
    steps_per_epoch_ = batches / comm_.world_size() / recipe_.accumulation;
    if (steps_per_epoch_ == 0) {
      const std::string batch = recipe_.gnmt ? "batchSize: " : "batchTokens: ";
      const int64_t size = recipe_.gnmt ? recipe_.batch_sentences : recipe_.batch_tokens;
      return Status::InvalidArgument("spec.hyperparameters." + batch + std::to_string(train_.size()) +
                                     " training pairs make " + std::to_string(batches) + " batches of " +
                                     std::to_string(size) + (recipe_.gnmt ? " pairs" : " tokens") + ", fewer than " +
                                     std::to_string(recipe_.accumulation) + " a step for each of " +
                                     std::to_string(comm_.world_size()) + " workers");
    }
    const int64_t test_count = recipe_.eval_sentences > 0 ? std::min(recipe_.eval_sentences, test_.size()) : test_.size();
    if (test_count == 0) {
      return Status::InvalidArgument(recipe_.test.source_path + ": no test pair of at most testMaxLength tokens");
    }
    test_count_ = test_count;
    updates_ = steps_per_epoch_ * recipe_.max_epochs;
    context_.mllog.Point("train_samples", train_.size());
    context_.mllog.Point("eval_samples", test_count_);
    return TrainingPlan{steps_per_epoch_, updates_};
  }

  void BeginEpoch(int64_t epoch) override {
    context_.mllog.Start("epoch_start", {{"epoch_num", epoch}});
    epoch_ = epoch;
    if (recipe_.gnmt) {  // new batches each epoch, in order
      batches_ = SentenceBatches(train_.size(), recipe_.batch_sentences, epoch, static_cast<uint64_t>(recipe_.seed));
      order_.resize(batches_.size());
      std::iota(order_.begin(), order_.end(), 0);
    } else {  // the same batches each epoch, in a new order
      order_ = EpochPermutation(static_cast<int64_t>(batches_.size()), epoch, static_cast<uint64_t>(recipe_.seed));
    }
    model_->train();
    epoch_loss_ = 0;
  }

  // 4a's decay starts and steps at fractions of the run's updates, as MLBench's does.
  double LearningRate(int64_t update) const override {
    if (!recipe_.gnmt) return InverseSqrtLr(update, recipe_.lr_warmup, recipe_.lr);
    const auto share = [&](double fraction) { return static_cast<int64_t>(fraction * static_cast<double>(updates_)); };
    const StepDecayLr schedule{recipe_.lr,     recipe_.lr_warmup, share(recipe_.lr_decay_start), share(recipe_.lr_decay_interval),
                               recipe_.lr_decays, recipe_.lr_decay_factor};
    return schedule.At(update);
  }

  // The step's micro-batches are this rank's next `accumulation` batches. 4b: each one's loss is
  // its share of the mean over the step's target tokens, and the gradient sync averages over
  // ranks. 4a, as MLBench: its share of the mean over the step's sentences, summed over ranks
  // (the sync's average times k).
  StepWork WorkOf(int64_t step) override {
    const int64_t first = (step % steps_per_epoch_) * recipe_.accumulation;
    step_batches_.clear();
    int64_t tokens = 0, source_tokens = 0, sentences = 0;
    for (int64_t micro = 0; micro < recipe_.accumulation; ++micro) {
      const int64_t index = order_[static_cast<size_t>((first + micro) * comm_.world_size() + comm_.rank())];
      step_batches_.push_back(MakeBatch(train_, batches_[static_cast<size_t>(index)], device_));
      tokens += step_batches_.back().target_tokens;
      source_tokens += step_batches_.back().source_tokens;
      sentences += step_batches_.back().source.size(0);
    }
    step_tokens_ = tokens;
    step_source_tokens_ = source_tokens;
    step_sentences_ = sentences;
    const double denominator =
        recipe_.gnmt ? static_cast<double>(sentences) / comm_.world_size() : static_cast<double>(tokens);
    StepWork work;
    work.micro_batches = recipe_.accumulation;
    work.samples = sentences;
    work.load = [](int64_t) { return Status::Ok(); };
    work.loss = [this, denominator](int64_t micro) {
      const Batch& batch = step_batches_[static_cast<size_t>(micro)];
      torch::Tensor logits;
      {
        Autocast autocast(device_, precision_);
        logits = model_->Logits(batch.source, batch.target_input);
      }
      return LabelSmoothedLossSum(logits, batch.target_output, recipe_.smoothing, Vocabulary::kPad) / denominator;
    };
    if (recipe_.grad_clip > 0) work.before_update = [this] { return sync_->ClipGradNorm(recipe_.grad_clip); };
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
    // The loss per target token, whatever the backward's normalisation (4a's is per sentence × k).
    epoch_loss_ += recipe_.gnmt ? loss * static_cast<double>(step_sentences_) /
                                      (static_cast<double>(comm_.world_size()) * static_cast<double>(step_tokens_))
                                : loss;
    const int64_t done = step % steps_per_epoch_ + 1;
    if (done % std::max<int64_t>(1, steps_per_epoch_ / 10) == 0) context_.progress.Report(Progress(done));
    return done == steps_per_epoch_;
  }

  void EndEpoch(int64_t epoch) override { context_.mllog.Stop("epoch_stop", {{"epoch_num", epoch}}); }

  StatusOr<bool> Evaluate(int64_t step, const RunClock& clock) override {
    context_.metrics.SetTrainLoss(epoch_loss_ / static_cast<double>(steps_per_epoch_));
    ASSIGN_OR_RETURN(bleu_, TestBleu());
    context_.metrics.SetEvalBleu(*bleu_);
    context_.mllog.Point("train_loss", epoch_loss_ / static_cast<double>(steps_per_epoch_), {{"epoch_num", epoch_}});
    context_.mllog.Point("eval_accuracy", *bleu_, {{"epoch_num", epoch_}});
    context_.progress.Report(Progress(steps_per_epoch_));
    if (comm_.rank() == 0) {
      std::printf("[%s] epoch %lld: train loss %.4f, BLEU %.2f, lr %.3g, %s\n", task(), static_cast<long long>(epoch_),
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
    summary.precision = precision_;
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
  const char* task() const { return recipe_.gnmt ? "4a" : "4b"; }

  // Target ids as the text BLEU scores: MLBench's WMT16 files are Moses-tokenized, so their BPE
  // text is detokenized; WMT17's subtokens and the synthetic pair's words decode to text.
  std::string Text(const std::vector<int32_t>& ids) const {
    const std::string text = vocabulary_->Decode(ids);
    return recipe_.synthetic || recipe_.wmt17 ? text : MosesDetokenize(text, recipe_.target_language);
  }

  StatusOr<ParallelCorpus> ReadCorpus(const ParallelCorpusOptions& options) const {
    if (!recipe_.wmt17) return ReadParallelCorpus(options, *vocabulary_);
    return ReadWmt17Corpus({options.source_path, options.target_path, options.max_length, {}}, *vocabulary_);
  }

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
      const Batch batch = MakeBatch(test_, pairs, device_);
      DecodeOptions decode;
      decode.begin = Vocabulary::kBegin;
      decode.end = Vocabulary::kEnd;
      decode.max_length = std::min(batch.source.size(1) + 50, recipe_.test_max_length + 1);
      decode.beam = recipe_.beam;
      decode.length_penalty = recipe_.length_penalty;
      decode.coverage_penalty = recipe_.coverage_penalty;
      torch::Tensor output;
      {
        Autocast autocast(device_, precision_);
        output = Translate(*model_, batch.source, decode);
      }
      for (int64_t row = 0; row < output.size(0); ++row) {
        const std::string hypothesis = Text(Ids(output[row]));
        const std::string reference = Text(test_.target.Sentence(pairs[static_cast<size_t>(row)]));
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
  const torch::Device device_;
  const std::string precision_;
  const GradientSyncOptions sync_options_;
  GradientSync* sync_ = nullptr;
  std::optional<Vocabulary> vocabulary_;
  std::optional<SyntheticLanguagePair> language_;
  std::shared_ptr<Seq2SeqModule> model_;
  ParallelCorpus train_, test_;
  std::vector<std::vector<int64_t>> batches_;
  std::vector<int64_t> order_;  // of the batches, this epoch
  std::vector<Batch> step_batches_;
  int64_t step_tokens_ = 0;  // target tokens, the loss's denominator
  int64_t step_source_tokens_ = 0;
  int64_t step_sentences_ = 0;
  int64_t updates_ = 0;  // in the whole run, for 4a's schedule
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
    const BenchmarkSpec& spec = context.benchmark.spec;
    TranslationSetup setup;
    ASSIGN_OR_RETURN(setup.recipe, ReadTranslationRecipe(spec, context.communicator.world_size()));
    RecipeReader read(spec.hyperparameters);
    setup.sync = ReadGradientSyncOptions(read);
    RETURN_IF_ERROR(read.status());
    ASSIGN_OR_RETURN(setup.device, TrainingDevice(spec));
    ASSIGN_OR_RETURN(setup.precision, ResolvePrecision(setup.recipe.precision, setup.device));
    TranslationTrainee trainee(context, std::move(setup));
    return RunTrainingLoop(context, trainee);
  }
};

}  // namespace

std::unique_ptr<Task> NewTranslationTask() { return std::make_unique<TranslationTask>(); }

}  // namespace ergobench
