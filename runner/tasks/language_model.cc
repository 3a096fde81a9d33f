#include "runner/tasks/language_model.h"

#include <torch/torch.h>

#include <cstdio>
#include <filesystem>

#include "base/units.h"
#include "runner/data/bpe_tokenizer.h"
#include "runner/data/shard.h"
#include "runner/data/text_corpus.h"
#include "runner/dist/communicator.h"
#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/models/gpt.h"
#include "runner/progress_writer.h"
#include "runner/train/training_device.h"
#include "runner/train/lr_schedule.h"
#include "runner/train/multi_tensor_adam.h"
#include "runner/train/recipe_reader.h"
#include "runner/train/run_clock.h"
#include "runner/train/training_loop.h"

namespace ergobench {
namespace {

struct LmRecipe {
  std::string model_name;
  torch::Device device{torch::kCPU};
  GptConfig model;
  int64_t batch = 0;
  int64_t accumulation = 0;
  double lr = 0;
  double min_lr = 0;
  int64_t lr_warmup = 0;
  int64_t max_steps = 0;
  int64_t decay_steps = 0;
  double weight_decay = 0;
  double beta1 = 0;
  double beta2 = 0;
  double epsilon = 0;
  double grad_clip = 0;
  std::string precision;
  int64_t eval_interval = 0;
  int64_t eval_sequences = 0;
  std::string vocab_file;
  std::string merges_file;
  CorpusOptions corpus;
  double peak_tflops = 0;
  int64_t seed = 0;
  int64_t throughput_warmup = 0;
  bool synthetic = false;
  std::optional<double> goal;  // a validation loss; none on synthetic tokens
  GradientSyncOptions sync;
};

// A tokenizer file as given, or under the dataset's folder (the corpus file's, for a file).
std::string UnderDataset(const std::string& file, const std::string& dataset_path) {
  if (file.empty() || file.front() == '/' || dataset_path.empty()) return file;
  std::filesystem::path base(dataset_path);
  if (!std::filesystem::is_directory(base)) base = base.parent_path();
  return (base / file).string();
}

StatusOr<LmRecipe> ReadLmRecipe(const BenchmarkSpec& spec) {
  RecipeReader read(spec.hyperparameters);
  LmRecipe recipe;
  recipe.model_name = read.String("model");
  RETURN_IF_ERROR(read.status());
  const GptPreset* preset = FindGptPreset(recipe.model_name);
  if (preset == nullptr) {
    return Status::InvalidArgument("spec.hyperparameters.model: no preset \"" + recipe.model_name + "\"; known: " +
                                   GptPresetNames());
  }
  recipe.model = preset->config;
  bool modified = false;
  for (const auto& [name, field] : {std::pair{"layers", &GptConfig::layers}, std::pair{"hidden", &GptConfig::hidden},
                                    std::pair{"heads", &GptConfig::heads},
                                    std::pair{"sequenceLength", &GptConfig::sequence_length}}) {
    const int64_t value = read.Int(name);
    if (value > 0 && value != recipe.model.*field) {
      recipe.model.*field = value;
      modified = true;
    }
  }
  if (modified) recipe.model_name += " (modified)";
  recipe.batch = read.Int("batchSize");
  recipe.accumulation = read.Int("gradientAccumulation");
  recipe.lr = read.Number("learningRate");
  recipe.min_lr = read.Number("minLearningRate");
  recipe.lr_warmup = read.Int("lrWarmupSteps");
  recipe.max_steps = read.Int("maxSteps");
  recipe.decay_steps = read.Int("decaySteps");
  if (recipe.decay_steps == 0) recipe.decay_steps = recipe.max_steps;
  recipe.weight_decay = read.Number("weightDecay");
  recipe.beta1 = read.Number("beta1");
  recipe.beta2 = read.Number("beta2");
  recipe.epsilon = read.Number("epsilon");
  recipe.grad_clip = read.Number("gradClip");
  recipe.sync = ReadGradientSyncOptions(read);
  recipe.precision = read.String("precision");
  recipe.eval_interval = read.Int("evalInterval");
  recipe.eval_sequences = read.Int("evalSequences");
  recipe.synthetic = spec.dataset.source == "synthetic";
  recipe.vocab_file = UnderDataset(read.String("vocabFile"), spec.dataset.path);
  recipe.merges_file = UnderDataset(read.String("mergesFile"), spec.dataset.path);
  if (recipe.vocab_file.empty() != recipe.merges_file.empty()) {
    return Status::InvalidArgument("spec.hyperparameters: vocabFile and mergesFile come together; got only " +
                                   std::string(recipe.vocab_file.empty() ? "mergesFile" : "vocabFile"));
  }
  recipe.corpus.path = spec.dataset.path;
  recipe.corpus.format = read.String("corpusFormat");
  recipe.corpus.text_field = read.String("textField");
  recipe.corpus.max_tokens = read.Int("maxTokens");
  recipe.peak_tflops = read.Number("peakTflops");
  recipe.seed = read.Int("seed");
  recipe.throughput_warmup = read.Int("warmupSteps");
  RETURN_IF_ERROR(read.status());
  ASSIGN_OR_RETURN(recipe.device, TrainingDevice(spec));
  ASSIGN_OR_RETURN(recipe.precision, ResolvePrecision(recipe.precision, recipe.device));
  if (!recipe.synthetic && spec.goal) recipe.goal = spec.goal->target;
  return recipe;
}

// Training and validation sequences: windows of S + 1 corpus tokens, or random tokens.
class TokenSequences {
 public:
  TokenSequences(std::vector<int32_t> tokens, int64_t sequence_length, int64_t vocab_size, uint64_t seed)
      : tokens_(std::move(tokens)), length_(sequence_length), vocab_(vocab_size), rng_(seed) {}

  // Fills row b of `inputs` and `targets` ([n, S] int64) with sequence `index`, or with
  // random tokens when there is no corpus.
  void Fill(int64_t index, int64_t b, torch::Tensor& inputs, torch::Tensor& targets) {
    int64_t* in = inputs.data_ptr<int64_t>() + b * length_;
    int64_t* out = targets.data_ptr<int64_t>() + b * length_;
    if (tokens_.empty()) {
      int64_t previous = static_cast<int64_t>(rng_.Below(static_cast<uint64_t>(vocab_)));
      for (int64_t t = 0; t < length_; ++t) {
        in[t] = previous;
        previous = out[t] = static_cast<int64_t>(rng_.Below(static_cast<uint64_t>(vocab_)));
      }
      return;
    }
    const int32_t* window = tokens_.data() + index * length_;
    for (int64_t t = 0; t < length_; ++t) {
      in[t] = window[t];
      out[t] = window[t + 1];
    }
  }

 private:
  std::vector<int32_t> tokens_;
  int64_t length_;
  int64_t vocab_;
  SplitMix64 rng_;
};

torch::Tensor TokenLoss(Gpt& model, const torch::Tensor& inputs, const torch::Tensor& targets, const LmRecipe& recipe,
                        torch::nn::functional::CrossEntropyFuncOptions::reduction_t reduction) {
  torch::Tensor logits;
  {
    Autocast autocast(recipe.device, recipe.precision);
    logits = model->forward(inputs);
  }
  namespace F = torch::nn::functional;
  return F::cross_entropy(logits.reshape({-1, logits.size(-1)}).to(torch::kFloat), targets.reshape({-1}),
                          F::CrossEntropyFuncOptions().reduction(reduction));
}

// Mean validation loss per token over sequences [first, first + count), split across ranks.
Status EvaluateLoss(Communicator& comm, Gpt& model, TokenSequences& data, int64_t first, int64_t count, int64_t batch,
                    int64_t length, const LmRecipe& recipe, double* loss) {
  torch::NoGradGuard no_grad;
  const int64_t k = comm.world_size();
  const int64_t begin = first + count * comm.rank() / k;
  const int64_t end = first + count * (comm.rank() + 1) / k;
  double sums[2] = {0, 0};  // loss, tokens
  for (int64_t start = begin; start < end; start += batch) {
    const int64_t n = std::min(batch, end - start);
    torch::Tensor inputs = torch::empty({n, length}, torch::kLong);
    torch::Tensor targets = torch::empty({n, length}, torch::kLong);
    for (int64_t b = 0; b < n; ++b) data.Fill(start + b, b, inputs, targets);
    sums[0] += TokenLoss(model, inputs.to(recipe.device), targets.to(recipe.device), recipe, torch::kSum).item<double>();
    sums[1] += static_cast<double>(n * length);
  }
  RETURN_IF_ERROR(comm.AllReduce(sums, 2, DType::kFloat64, ReduceOp::kSum));
  *loss = sums[0] / sums[1];
  return Status::Ok();
}

StatusOr<BpeTokenizer> LoadTokenizer(const LmRecipe& recipe) {
  if (recipe.vocab_file.empty()) return BpeTokenizer::ByteLevel();
  return BpeTokenizer::FromFiles(recipe.vocab_file, recipe.merges_file);
}

// AdamW with decoupled weight decay on the weight matrices and embeddings only, as GPT-2
// and Megatron-LM: biases and LayerNorm gains are not decayed.
ParameterGroups DecayedAndNot(Gpt& model) {
  ParameterGroups groups(2);
  for (const torch::Tensor& p : model->parameters()) groups[p.dim() >= 2 ? 0 : 1].push_back(p);
  return groups;
}

// `groups` as DecayedAndNot makes them, or the gradient sync's shards of them.
std::unique_ptr<torch::optim::AdamW> MakeAdamW(const ParameterGroups& groups, const LmRecipe& r) {
  const auto options = [&](double weight_decay) {
    return std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(r.lr)
                                                            .betas({r.beta1, r.beta2})
                                                            .eps(r.epsilon)
                                                            .weight_decay(weight_decay));
  };
  std::vector<torch::optim::OptimizerParamGroup> optimizer_groups;
  optimizer_groups.emplace_back(groups[0], options(r.weight_decay));
  optimizer_groups.emplace_back(groups[1], options(0.0));
  return std::make_unique<MultiTensorAdamW>(optimizer_groups, *options(r.weight_decay));
}

// The language model as the training loop's trainee: maxSteps optimizer steps of AdamW with a
// warm-up + cosine learning rate, gradient accumulation and clipping, evaluating every
// evalInterval steps until the loss goal.
class LanguageModelTrainee : public Trainee {
 public:
  LanguageModelTrainee(TaskContext& context, LmRecipe recipe)
      : context_(context), comm_(context.communicator), recipe_(std::move(recipe)) {}

  int64_t seed() const override { return recipe_.seed; }
  int64_t throughput_warmup_steps() const override { return recipe_.throughput_warmup; }
  const GradientSyncOptions& sync_options() const override { return recipe_.sync; }
  std::optional<GoalTrend> goal() const override {  // a validation loss: lower is better
    return recipe_.goal ? std::optional(GoalTrend{*recipe_.goal, false}) : std::nullopt;
  }
  torch::Device device() const override { return recipe_.device; }
  std::string precision() const override { return recipe_.precision; }
  double peak_flops_override() const override { return recipe_.peak_tflops * 1e12; }
  std::optional<LossScalerOptions> loss_scaling() const override { return AmpLossScaling(recipe_.precision); }

  void LogRecipe(MlLog& mllog) override {
    mllog.Point("submission_benchmark", "gpt");
    mllog.Point("seed", recipe_.seed);
    mllog.Point("global_batch_size", PerStep() * comm_.world_size());
    mllog.Point("gradient_accumulation_steps", recipe_.accumulation);
    mllog.Point("opt_base_learning_rate", recipe_.lr);
    mllog.Point("opt_learning_rate_warmup_steps", recipe_.lr_warmup);
    mllog.Point("opt_adamw_beta_1", recipe_.beta1);
    mllog.Point("opt_adamw_beta_2", recipe_.beta2);
    mllog.Point("opt_adamw_weight_decay", recipe_.weight_decay);
    mllog.Point("opt_gradient_clip_norm", recipe_.grad_clip);
  }

  // The tokenizer and the model, whose vocabulary is the tokenizer's.
  StatusOr<BuiltModel> BuildModel() override {
    ASSIGN_OR_RETURN(BpeTokenizer tokenizer, LoadTokenizer(recipe_));
    config_ = recipe_.model;
    // Synthetic tokens keep the preset's vocabulary, so the model is the preset's size.
    if (!recipe_.synthetic || !recipe_.vocab_file.empty()) config_.vocab_size = tokenizer.vocab_size();
    RETURN_IF_ERROR(ValidateGptConfig(config_));
    context_.mllog.Point("max_sequence_length", config_.sequence_length);
    tokenizer_ = std::move(tokenizer);
    model_ = Gpt(config_);
    model_->to(recipe_.device);
    return BuiltModel{model_->parameters(), DecayedAndNot(model_), model_->ParameterBlocks()};
  }

  std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(GradientSync& sync) override {
    model_->SetBlockHooks(sync.block_hooks());
    sync_ = &sync;
    return MakeAdamW(sync.OptimizerGroups(), recipe_);
  }

  // The corpus, tokenized after run_start (it counts towards time to the goal), split into
  // training and validation sequences.
  StatusOr<TrainingPlan> Load() override {
    std::vector<int32_t> corpus;
    if (!recipe_.synthetic) {
      ASSIGN_OR_RETURN(CorpusTokens loaded, LoadCorpus(recipe_.corpus, *tokenizer_));
      const int64_t sequences = PackedSequenceCount(static_cast<int64_t>(loaded.tokens.size()), Length());
      eval_count_ = std::min(recipe_.eval_sequences, sequences / 2);
      train_count_ = sequences - eval_count_;
      if (eval_count_ == 0) {
        return Status::InvalidArgument(recipe_.corpus.path + ": " + std::to_string(loaded.tokens.size()) +
                                       " tokens make fewer than 2 sequences of " + std::to_string(Length() + 1) +
                                       "; give a larger corpus or a smaller sequenceLength");
      }
      context_.mllog.Point("train_samples", train_count_);
      context_.mllog.Point("eval_samples", eval_count_);
      corpus = std::move(loaded.tokens);
    }
    data_.emplace(std::move(corpus), Length(), config_.vocab_size, RankStreamSeed(recipe_.seed, comm_.rank(), 0));
    // Synthetic tokens are drawn fresh: one "epoch" of max_steps, and no shard to draw.
    const int world_size = comm_.world_size();
    steps_per_epoch_ = recipe_.synthetic ? recipe_.max_steps : StepsPerEpoch(train_count_, world_size, PerStep());
    if (steps_per_epoch_ == 0) {
      return Status::InvalidArgument("spec.hyperparameters.batchSize: " + std::to_string(recipe_.batch) + " x " +
                                     std::to_string(recipe_.accumulation) + " accumulation x " + std::to_string(world_size) +
                                     " workers is more than the " + std::to_string(train_count_) +
                                     " training sequences");
    }
    inputs_ = torch::empty({recipe_.batch, Length()}, torch::kLong);
    targets_ = torch::empty({recipe_.batch, Length()}, torch::kLong);
    return TrainingPlan{steps_per_epoch_, recipe_.max_steps};
  }

  void BeginEpoch(int64_t epoch) override {
    epoch_ = epoch;
    if (!recipe_.synthetic) {
      shard_ = ShardIndices(train_count_, comm_.world_size(), comm_.rank(), epoch, static_cast<uint64_t>(recipe_.seed));
    }
  }

  double LearningRate(int64_t update) const override {
    return WarmupCosineLr(update, recipe_.lr_warmup, recipe_.decay_steps, recipe_.lr, recipe_.min_lr);
  }

  StepWork WorkOf(int64_t step) override {
    StepWork work;
    work.micro_batches = recipe_.accumulation;
    work.samples = PerStep();
    work.load = [this, step](int64_t micro) {
      const int64_t first = (step % steps_per_epoch_) * PerStep() + micro * recipe_.batch;
      for (int64_t row = 0; row < recipe_.batch; ++row) {
        data_->Fill(recipe_.synthetic ? 0 : shard_[first + row], row, inputs_, targets_);
      }
      device_inputs_ = inputs_.to(recipe_.device);
      device_targets_ = targets_.to(recipe_.device);
      return Status::Ok();
    };
    work.loss = [this](int64_t) {
      return TokenLoss(model_, device_inputs_, device_targets_, recipe_, torch::kMean) /
             static_cast<double>(recipe_.accumulation);
    };
    // Every rank holds the same averaged gradients (or its shard of them), so every rank clips alike.
    if (recipe_.grad_clip > 0) work.before_update = [this] { return sync_->ClipGradNorm(recipe_.grad_clip); };
    return work;
  }

  // The live progress line moves every 2% of the run; evaluation waits for evalInterval.
  bool AfterStep(int64_t step, double loss) override {
    context_.metrics.AddTokens(static_cast<double>(PerStep() * Length()));
    interval_loss_ += loss;
    ++interval_steps_;
    const bool evaluate = (step + 1) % recipe_.eval_interval == 0 || step + 1 == recipe_.max_steps;
    if (!evaluate && (step + 1) % std::max<int64_t>(1, recipe_.max_steps / 50) == 0) {
      context_.progress.Report(Progress(step));
    }
    return evaluate;
  }

  // True when this step's evaluation reached the loss goal.
  StatusOr<bool> Evaluate(int64_t step, const RunClock& clock) override {
    ProgressEvent event = Progress(step);
    const double train_loss = *event.loss;
    interval_loss_ = 0;
    interval_steps_ = 0;
    context_.metrics.SetTrainLoss(train_loss);
    if (eval_count_ > 0) {
      double loss = 0;
      RETURN_IF_ERROR(
          EvaluateLoss(comm_, model_, *data_, train_count_, eval_count_, recipe_.batch, Length(), recipe_, &loss));
      eval_loss_ = event.value = loss;
      context_.metrics.SetEvalLoss(loss);
      context_.mllog.Point("eval_loss", loss, {{"step_num", step + 1}});
    }
    context_.progress.Report(event);
    if (comm_.rank() == 0) {
      const std::string eval_text = eval_loss_ ? ", eval loss " + FormatFixed(*eval_loss_, 4) : "";
      std::printf("[gpt] step %lld/%lld: train loss %.4f%s, lr %.3g, %s\n", static_cast<long long>(step + 1),
                  static_cast<long long>(recipe_.max_steps), train_loss, eval_text.c_str(), LearningRate(step),
                  FormatSeconds(clock.Elapsed()).c_str());
      std::fflush(stdout);
    }
    return recipe_.goal && eval_loss_ && *eval_loss_ <= *recipe_.goal;
  }

  // CARAML's columns over the throughput window, and MFU against the peak given or estimated.
  void Finish(const RunClock& clock, Figures* figures) override {
    steps_ = clock.steps();
    LanguageModelSummary summary;
    summary.model = recipe_.model_name;
    summary.parameters = GptParameterCount(config_);
    summary.sequence_length = Length();
    summary.global_batch_size = PerStep() * comm_.world_size();
    summary.precision = recipe_.precision;
    summary.tokens = clock.steps() * PerStep() * Length();
    summary.flops_per_token = GptTrainingFlopsPerToken(config_);
    summary.eval_loss = eval_loss_;
    if (clock.window_steps() > 0) {
      summary.tokens_per_second = static_cast<double>(clock.window_samples() * Length()) / clock.window_seconds();
      summary.seconds_per_iteration = clock.window_seconds() / static_cast<double>(clock.window_steps());
      summary.model_tflops_per_second = summary.flops_per_token * summary.tokens_per_second / 1e12;
      // The training loop's peak (rank_peak.h, or peakTflops), against this task's formula.
      if (figures->peak_flops_per_second) {
        summary.peak_tflops = *figures->peak_flops_per_second / 1e12;
        peak_basis_ = figures->peak_basis;
        summary.mfu = summary.model_tflops_per_second / *summary.peak_tflops;
      }
    }
    figures->language_model = summary;
  }

  std::string Summary(const Figures& figures) const override {
    const LanguageModelSummary& summary = *figures.language_model;
    std::string line = summary.model + ", " + std::to_string(steps_) + " steps";
    if (eval_loss_) line += ", eval loss " + FormatFixed(*eval_loss_, 4);
    if (recipe_.goal) {
      line += figures.goal_reached.value_or(false) ? ", goal reached in " + FormatSeconds(*figures.time_to_accuracy_seconds)
                                             : ", goal not reached";
    }
    return line + ": " + FormatFixed(summary.tokens_per_second, 0) + " tokens/s/rank, " +
           FormatFixed(summary.seconds_per_iteration, 3) + " s/iteration, " + FormatFixed(summary.model_tflops_per_second, 4) +
           " TFLOP/s/device, MFU " + (summary.mfu ? FormatFixed(100 * *summary.mfu, 2) + "% of " + peak_basis_ : "n/a") +
           ", communication " + FormatFixed(100 * figures.communication_ratio.value_or(0), 1) + "%";
  }

 private:
  int64_t PerStep() const { return recipe_.batch * recipe_.accumulation; }
  int64_t Length() const { return config_.sequence_length; }

  // The training loss since the last evaluation, and the last evaluation's loss.
  ProgressEvent Progress(int64_t step) const {
    ProgressEvent event;
    event.stage = "run";
    event.epoch = epoch_;
    event.done = step + 1;
    event.total = recipe_.max_steps;
    event.loss = interval_loss_ / static_cast<double>(interval_steps_);
    event.metric = "loss";
    event.value = eval_loss_;
    return event;
  }

  TaskContext& context_;
  Communicator& comm_;
  const LmRecipe recipe_;
  GptConfig config_;
  std::optional<BpeTokenizer> tokenizer_;
  Gpt model_{nullptr};
  GradientSync* sync_ = nullptr;  // the loop's
  std::optional<TokenSequences> data_;
  torch::Tensor inputs_;  // filled on the host, copied to the training device
  torch::Tensor targets_;
  torch::Tensor device_inputs_;
  torch::Tensor device_targets_;
  std::vector<int64_t> shard_;
  int64_t train_count_ = 0;
  int64_t eval_count_ = 0;
  int64_t steps_per_epoch_ = 0;
  int64_t epoch_ = 0;
  int64_t steps_ = 0;
  double interval_loss_ = 0;  // training loss since the last evaluation
  int64_t interval_steps_ = 0;
  std::optional<double> eval_loss_;
  std::string peak_basis_;
};

class LanguageModelTask : public Task {
 public:
  StatusOr<TaskOutcome> Run(TaskContext& context) override {
    ASSIGN_OR_RETURN(LmRecipe recipe, ReadLmRecipe(context.benchmark.spec));
    LanguageModelTrainee trainee(context, std::move(recipe));
    return RunTrainingLoop(context, trainee);
  }
};

}  // namespace

std::unique_ptr<Task> NewLanguageModelTask() { return std::make_unique<LanguageModelTask>(); }

}  // namespace ergobench
