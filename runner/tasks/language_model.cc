#include "runner/tasks/language_model.h"

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/units.h"
#include "runner/cpu_peak.h"
#include "runner/data/bpe_tokenizer.h"
#include "runner/data/shard.h"
#include "runner/data/text_corpus.h"
#include "runner/dist/communicator.h"
#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/models/gpt.h"
#include "runner/progress_writer.h"
#include "runner/stop_signal.h"
#include "runner/tasks/lr_schedule.h"
#include "runner/tasks/phase_timer.h"
#include "runner/tasks/run_clock.h"
#include "runner/tasks/sync_sgd_trainer.h"

namespace ergobench {
namespace {


struct LmRecipe {
  std::string model_name;
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
};

// A tokenizer file as given, or under the dataset's folder (the corpus file's, for a file).
std::string UnderDataset(const std::string& file, const std::string& dataset_path) {
  if (file.empty() || file.front() == '/' || dataset_path.empty()) return file;
  std::filesystem::path base(dataset_path);
  if (!std::filesystem::is_directory(base)) base = base.parent_path();
  return (base / file).string();
}

StatusOr<LmRecipe> ReadLmRecipe(const BenchmarkSpec& spec) {
  const nlohmann::json& h = spec.hyperparameters;
  LmRecipe r;
  r.model_name = h.at("model").get<std::string>();
  const GptPreset* preset = FindGptPreset(r.model_name);
  if (preset == nullptr) {
    return Status::InvalidArgument("spec.hyperparameters.model: no preset \"" + r.model_name + "\"; known: " +
                                   GptPresetNames());
  }
  r.model = preset->config;
  bool modified = false;
  for (const auto& [name, field] : {std::pair{"layers", &GptConfig::layers}, std::pair{"hidden", &GptConfig::hidden},
                                    std::pair{"heads", &GptConfig::heads},
                                    std::pair{"sequenceLength", &GptConfig::sequence_length}}) {
    const int64_t value = h.at(name).get<int64_t>();
    if (value > 0 && value != r.model.*field) {
      r.model.*field = value;
      modified = true;
    }
  }
  if (modified) r.model_name += " (modified)";
  r.batch = h.at("batchSize").get<int64_t>();
  r.accumulation = h.at("gradientAccumulation").get<int64_t>();
  r.lr = h.at("learningRate").get<double>();
  r.min_lr = h.at("minLearningRate").get<double>();
  r.lr_warmup = h.at("lrWarmupSteps").get<int64_t>();
  r.max_steps = h.at("maxSteps").get<int64_t>();
  r.decay_steps = h.at("decaySteps").get<int64_t>();
  if (r.decay_steps == 0) r.decay_steps = r.max_steps;
  r.weight_decay = h.at("weightDecay").get<double>();
  r.beta1 = h.at("beta1").get<double>();
  r.beta2 = h.at("beta2").get<double>();
  r.epsilon = h.at("epsilon").get<double>();
  r.grad_clip = h.at("gradClip").get<double>();
  r.precision = h.at("precision").get<std::string>();
  r.eval_interval = h.at("evalInterval").get<int64_t>();
  r.eval_sequences = h.at("evalSequences").get<int64_t>();
  r.synthetic = spec.dataset.source == "synthetic";
  r.vocab_file = UnderDataset(h.at("vocabFile").get<std::string>(), spec.dataset.path);
  r.merges_file = UnderDataset(h.at("mergesFile").get<std::string>(), spec.dataset.path);
  if (r.vocab_file.empty() != r.merges_file.empty()) {
    return Status::InvalidArgument("spec.hyperparameters: vocabFile and mergesFile come together; got only " +
                                   std::string(r.vocab_file.empty() ? "mergesFile" : "vocabFile"));
  }
  r.corpus.path = spec.dataset.path;
  r.corpus.format = h.at("corpusFormat").get<std::string>();
  r.corpus.text_field = h.at("textField").get<std::string>();
  r.corpus.max_tokens = h.at("maxTokens").get<int64_t>();
  r.peak_tflops = h.at("peakTflops").get<double>();
  r.seed = h.at("seed").get<int64_t>();
  r.throughput_warmup = h.at("warmupSteps").get<int64_t>();
  if (r.precision == "auto") r.precision = "fp32";  // this runner trains on CPUs
  if (r.precision == "fp16") {
    return Status::InvalidArgument("spec.hyperparameters.precision: fp16 autocast needs a CUDA device; use bf16 or fp32");
  }
  if (!r.synthetic && spec.goal) r.goal = spec.goal->target;
  return r;
}

// Autocast to bf16 for the forward pass on the CPU; a no-op at fp32.
class CpuAutocast {
 public:
  explicit CpuAutocast(bool enabled) : enabled_(enabled) {
    if (!enabled_) return;
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    at::autocast::set_cpu_enabled(true);
  }
  ~CpuAutocast() {
    if (!enabled_) return;
    at::autocast::set_cpu_enabled(false);
    at::autocast::clear_cache();
  }
  CpuAutocast(const CpuAutocast&) = delete;
  CpuAutocast& operator=(const CpuAutocast&) = delete;

 private:
  bool enabled_;
};

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

torch::Tensor TokenLoss(Gpt& model, const torch::Tensor& inputs, const torch::Tensor& targets, bool bf16,
                        torch::nn::functional::CrossEntropyFuncOptions::reduction_t reduction) {
  torch::Tensor logits;
  {
    CpuAutocast autocast(bf16);
    logits = model->forward(inputs);
  }
  namespace F = torch::nn::functional;
  return F::cross_entropy(logits.reshape({-1, logits.size(-1)}).to(torch::kFloat), targets.reshape({-1}),
                          F::CrossEntropyFuncOptions().reduction(reduction));
}

// Mean validation loss per token over sequences [first, first + count), split across ranks.
Status EvaluateLoss(Communicator& comm, Gpt& model, TokenSequences& data, int64_t first, int64_t count, int64_t batch,
                    int64_t length, bool bf16, double* loss) {
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
    sums[0] += TokenLoss(model, inputs, targets, bf16, torch::kSum).item<double>();
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
std::unique_ptr<torch::optim::AdamW> MakeOptimizer(Gpt& model, const LmRecipe& r) {
  std::vector<torch::Tensor> decay, no_decay;
  for (const torch::Tensor& p : model->parameters()) (p.dim() >= 2 ? decay : no_decay).push_back(p);
  const auto options = [&](double weight_decay) {
    return std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(r.lr)
                                                            .betas({r.beta1, r.beta2})
                                                            .eps(r.epsilon)
                                                            .weight_decay(weight_decay));
  };
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, options(r.weight_decay));
  groups.emplace_back(no_decay, options(0.0));
  return std::make_unique<torch::optim::AdamW>(groups, *options(r.weight_decay));
}

std::string ParameterDigest(const std::vector<torch::Tensor>& params) {
  uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a, 64 bits
  for (const torch::Tensor& p : params) {
    const torch::Tensor contiguous = p.detach().contiguous();
    const auto* bytes = static_cast<const unsigned char*>(contiguous.data_ptr());
    for (size_t i = 0; i < static_cast<size_t>(contiguous.nbytes()); ++i) hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::optional<CpuPeak> PeakOfThisRank() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  return EstimateCpuPeak(text.str(), at::get_num_threads());
}

class LanguageModelTask : public Task {
 public:
  StatusOr<TaskOutcome> Run(TaskContext& context) override {
    ASSIGN_OR_RETURN(const LmRecipe r, ReadLmRecipe(context.benchmark.spec));
    Communicator& comm = context.communicator;
    const int k = comm.world_size();
    const int64_t global_batch = r.batch * r.accumulation * k;
    MlLog& mllog = context.mllog;
    mllog.Point("submission_benchmark", "gpt");
    mllog.Point("seed", r.seed);
    mllog.Point("global_batch_size", global_batch);
    mllog.Point("gradient_accumulation_steps", r.accumulation);
    mllog.Point("opt_base_learning_rate", r.lr);
    mllog.Point("opt_learning_rate_warmup_steps", r.lr_warmup);
    mllog.Point("opt_adamw_beta_1", r.beta1);
    mllog.Point("opt_adamw_beta_2", r.beta2);
    mllog.Point("opt_adamw_weight_decay", r.weight_decay);
    mllog.Point("opt_gradient_clip_norm", r.grad_clip);

    // Initialisation, apart from the timed run: tokenizer, model, optimizer.
    RunClock clock(mllog, context.metrics, r.throughput_warmup);
    torch::manual_seed(static_cast<uint64_t>(r.seed));
    ASSIGN_OR_RETURN(BpeTokenizer tokenizer, LoadTokenizer(r));
    GptConfig config = r.model;
    // Synthetic tokens keep the preset's vocabulary, so the model is the preset's size.
    if (!r.synthetic || !r.vocab_file.empty()) config.vocab_size = tokenizer.vocab_size();
    RETURN_IF_ERROR(ValidateGptConfig(config));
    mllog.Point("max_sequence_length", config.sequence_length);
    Gpt model(config);
    std::vector<torch::Tensor> params = model->parameters();
    RETURN_IF_ERROR(BroadcastFromRankZero(comm, params));
    std::unique_ptr<torch::optim::AdamW> optimizer = MakeOptimizer(model, r);
    GradientBuffer gradients(params);
    const bool bf16 = r.precision == "bf16";
    TaskOutcome outcome;
    Figures& f = outcome.figures;
    clock.StartRun(&f);
    const int64_t S = config.sequence_length;
    const int64_t per_step = r.batch * r.accumulation;
    int64_t train_count = 0;
    int64_t eval_count = 0;
    std::vector<int32_t> corpus;
    if (!r.synthetic) {
      ASSIGN_OR_RETURN(CorpusTokens loaded, LoadCorpus(r.corpus, tokenizer));
      const int64_t sequences = PackedSequenceCount(static_cast<int64_t>(loaded.tokens.size()), S);
      eval_count = std::min(r.eval_sequences, sequences / 2);
      train_count = sequences - eval_count;
      if (eval_count == 0) {
        return Status::InvalidArgument(r.corpus.path + ": " + std::to_string(loaded.tokens.size()) +
                                       " tokens make fewer than 2 sequences of " + std::to_string(S + 1) +
                                       "; give a larger corpus or a smaller sequenceLength");
      }
      mllog.Point("train_samples", train_count);
      mllog.Point("eval_samples", eval_count);
      corpus = std::move(loaded.tokens);
    }
    TokenSequences data(std::move(corpus), S, config.vocab_size,
                        static_cast<uint64_t>(r.seed) * 1000003u + static_cast<uint64_t>(comm.rank()));
    // Synthetic tokens are drawn fresh: one "epoch" of max_steps, and no shard to draw.
    const int64_t steps_per_epoch = r.synthetic ? r.max_steps : StepsPerEpoch(train_count, k, per_step);
    if (steps_per_epoch == 0) {
      return Status::InvalidArgument("spec.hyperparameters.batchSize: " + std::to_string(r.batch) + " x " +
                                     std::to_string(r.accumulation) + " accumulation x " + std::to_string(k) +
                                     " workers is more than the " + std::to_string(train_count) +
                                     " training sequences");
    }

    PhaseTimer phases(context.metrics);
    torch::Tensor inputs = torch::empty({r.batch, S}, torch::kLong);
    torch::Tensor targets = torch::empty({r.batch, S}, torch::kLong);
    std::vector<int64_t> shard;
    int64_t epoch = 0;
    double interval_loss = 0;
    int64_t interval_steps = 0;
    std::optional<double> eval_loss;
    const int64_t progress_every = std::max<int64_t>(1, r.max_steps / 50);
    for (int64_t step = 0; step < r.max_steps; ++step) {
      if (step % 25 == 0) RETURN_IF_ERROR(AgreeToContinue(comm, "during training"));
      if (step / steps_per_epoch + 1 != epoch) {
        epoch = step / steps_per_epoch + 1;
        if (!r.synthetic) shard = ShardIndices(train_count, k, comm.rank(), epoch, static_cast<uint64_t>(r.seed));
        context.metrics.SetEpoch(epoch);
      }
      const auto step_start = std::chrono::steady_clock::now();
      const double lr = WarmupCosineLr(step, r.lr_warmup, r.decay_steps, r.lr, r.min_lr);
      for (auto& group : optimizer->param_groups()) static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
      optimizer->zero_grad();
      double step_loss = 0;
      for (int64_t micro = 0; micro < r.accumulation; ++micro) {
        const int64_t first = (step % steps_per_epoch) * per_step + micro * r.batch;
        phases.Time("data", [&] {
          for (int64_t b = 0; b < r.batch; ++b) data.Fill(r.synthetic ? 0 : shard[first + b], b, inputs, targets);
        });
        torch::Tensor loss;
        phases.Time("forward", [&] {
          loss = TokenLoss(model, inputs, targets, bf16, torch::kMean) / static_cast<double>(r.accumulation);
        });
        phases.Time("backward", [&] { loss.backward(); });
        step_loss += loss.item<double>();
      }
      phases.Time("optimizer", [&] { gradients.Pack(); });
      Status reduced = Status::Ok();
      phases.Time("communication",
                  [&] { reduced = comm.AllReduce(gradients.data(), gradients.size(), DType::kFloat32, ReduceOp::kSum); });
      RETURN_IF_ERROR(reduced);
      phases.Time("optimizer", [&] {
        gradients.UnpackAveraged(k);
        // Every rank holds the same averaged gradients, so every rank clips alike.
        if (r.grad_clip > 0) torch::nn::utils::clip_grad_norm_(params, r.grad_clip);
        optimizer->step();
      });
      clock.Step(SecondsSince(step_start), per_step);
      context.metrics.AddTokens(static_cast<double>(per_step * S));
      interval_loss += step_loss;
      ++interval_steps;

      // The live progress line moves every 2% of the run; evaluation waits for evalInterval.
      const bool evaluate = (step + 1) % r.eval_interval == 0 || step + 1 == r.max_steps;
      if (!evaluate && (step + 1) % progress_every != 0) continue;
      ProgressEvent event;
      event.stage = "run";
      event.epoch = epoch;
      event.done = step + 1;
      event.total = r.max_steps;
      event.loss = interval_loss / static_cast<double>(interval_steps);
      event.metric = "loss";
      event.value = eval_loss;
      if (!evaluate) {
        context.progress.Report(event);
        continue;
      }
      const double train_loss = *event.loss;
      interval_loss = 0;
      interval_steps = 0;
      context.metrics.SetTrainLoss(train_loss);
      if (eval_count > 0) {
        double loss = 0;
        Status evaluated = Status::Ok();
        phases.Time("eval", [&] { evaluated = EvaluateLoss(comm, model, data, train_count, eval_count, r.batch, S, bf16, &loss); });
        RETURN_IF_ERROR(evaluated);
        eval_loss = loss;
        event.value = loss;
        context.metrics.SetEvalLoss(loss);
        mllog.Point("eval_loss", loss, {{"step_num", step + 1}});
      }
      context.progress.Report(event);
      if (comm.rank() == 0) {
        const std::string eval_text = eval_loss ? ", eval loss " + FormatFixed(*eval_loss, 4) : "";
        std::printf("[gpt] step %lld/%lld: train loss %.4f%s, lr %.3g, %s\n", static_cast<long long>(step + 1),
                    static_cast<long long>(r.max_steps), train_loss, eval_text.c_str(), lr,
                    FormatSeconds(clock.Elapsed()).c_str());
        std::fflush(stdout);
      }
      if (r.goal && eval_loss && *eval_loss <= *r.goal) {
        clock.ReachGoal(&f);
        break;
      }
    }
    clock.StopRun(r.goal.has_value(), &f);
    const bool reached = f.goal_reached.value_or(false);
    f.epochs = epoch;
    phases.Report(&f);

    LanguageModelSummary m;
    m.model = r.model_name;
    m.parameters = GptParameterCount(config);
    m.sequence_length = S;
    m.global_batch_size = global_batch;
    m.precision = r.precision;
    m.tokens = clock.steps() * per_step * S;
    m.flops_per_token = GptTrainingFlopsPerToken(config);
    m.eval_loss = eval_loss;
    m.parameter_digest = ParameterDigest(params);
    std::string peak_basis;
    if (clock.window_steps() > 0) {
      m.tokens_per_second = static_cast<double>(clock.window_samples() * S) / clock.window_seconds();
      m.seconds_per_iteration = clock.window_seconds() / static_cast<double>(clock.window_steps());
      m.model_tflops_per_second = m.flops_per_token * m.tokens_per_second / 1e12;
      if (r.peak_tflops > 0) {
        m.peak_tflops = r.peak_tflops;
        peak_basis = "peakTflops";
      } else if (const std::optional<CpuPeak> cpu = PeakOfThisRank()) {
        m.peak_tflops = cpu->tflops;
        peak_basis = cpu->basis;
      }
      if (m.peak_tflops) m.mfu = m.model_tflops_per_second / *m.peak_tflops;
    }
    f.language_model = m;

    outcome.summary = m.model + ", " + std::to_string(clock.steps()) + " steps";
    if (eval_loss) outcome.summary += ", eval loss " + FormatFixed(*eval_loss, 4);
    if (r.goal) {
      outcome.summary += reached ? ", goal reached in " + FormatSeconds(*f.time_to_accuracy_seconds) : ", goal not reached";
    }
    outcome.summary += ": " + FormatFixed(m.tokens_per_second, 0) + " tokens/s/rank, " + FormatFixed(m.seconds_per_iteration, 3) +
                       " s/iteration, " + FormatFixed(m.model_tflops_per_second, 4) + " TFLOP/s/device, MFU " +
                       (m.mfu ? FormatFixed(100 * *m.mfu, 2) + "% of " + peak_basis : "n/a") + ", communication " +
                       FormatFixed(100 * f.communication_ratio.value_or(0), 1) + "%";
    return outcome;
  }
};

}  // namespace

std::unique_ptr<Task> NewLanguageModelTask() { return std::make_unique<LanguageModelTask>(); }

}  // namespace ergobench
