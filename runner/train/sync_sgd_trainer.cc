#include "runner/train/sync_sgd_trainer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "api/contract/mlperf_benchmarks.h"
#include "base/units.h"
#include "runner/dist/communicator.h"
#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/progress_writer.h"
#include "runner/train/lr_schedule.h"
#include "runner/train/recipe_reader.h"
#include "runner/train/training_device.h"
#include "runner/train/training_loop.h"

namespace ergobench {
namespace {

void ReportEpochProgress(ProgressWriter& progress, int64_t epoch, int64_t done, int64_t total, double loss,
                         const std::string& metric, std::optional<double> value) {
  ProgressEvent event;
  event.stage = "run";
  event.epoch = epoch;
  event.done = done;
  event.total = total;
  event.loss = loss;
  event.metric = metric;
  event.value = value;
  progress.Report(event);
}

// Synchronous SGD as the training loop's trainee: epochs of this rank's shard, an evaluation
// after each, the MLBench or MLPerf learning-rate schedule.
class SgdTrainee : public Trainee {
 public:
  SgdTrainee(TaskContext& context, TrainingProblem& problem, const SgdRecipe& recipe)
      : context_(context),
        comm_(context.communicator),
        problem_(problem),
        recipe_(recipe),
        schedule_(recipe.lr, comm_.world_size(), recipe.plateau_factor, recipe.plateau_patience),
        metric_(problem.metric()) {}

  int64_t seed() const override { return recipe_.seed; }
  int64_t throughput_warmup_steps() const override { return recipe_.warmup_steps; }
  const GradientSyncOptions& sync_options() const override { return recipe_.sync; }
  std::optional<GoalTrend> goal() const override {
    return recipe_.goal ? std::optional(GoalTrend{*recipe_.goal, metric_.higher_is_better}) : std::nullopt;
  }
  torch::Device device() const override { return recipe_.device; }
  std::string precision() const override { return recipe_.precision; }
  std::optional<LossScalerOptions> loss_scaling() const override { return AmpLossScaling(recipe_.precision); }

  void LogRecipe(MlLog& mllog) override {
    mllog.Point("submission_benchmark", MlperfBenchmarkName(context_.benchmark.spec.task));
    mllog.Point("seed", recipe_.seed);
    mllog.Point("global_batch_size", StepSamples() * comm_.world_size());
    mllog.Point("gradient_accumulation_steps", recipe_.accumulation);
    mllog.Point("opt_base_learning_rate", recipe_.lr);
    if (const std::optional<PolynomialLr>& poly = recipe_.polynomial) {
      // MLPerf ResNet's SGD keys (closed_resnet_sgd): the rate's peak is k times learningRate.
      mllog.Point("opt_name", "sgd");
      mllog.Point("sgd_opt_base_learning_rate", recipe_.lr * comm_.world_size());
      mllog.Point("sgd_opt_end_learning_rate", poly->end);
      mllog.Point("sgd_opt_learning_rate_decay_poly_power", poly->power);
      mllog.Point("sgd_opt_weight_decay", recipe_.weight_decay);
      mllog.Point("sgd_opt_momentum", recipe_.momentum);
      mllog.Point("opt_learning_rate_warmup_epochs", poly->warmup_epochs);
      mllog.Point("model_bn_span", recipe_.batch);  // batch norm's statistics are each micro-batch's
    }
    if (const std::optional<EpochDecayLr>& decay = recipe_.epoch_decay) {  // MLPerf HPC's keys (cosmoflow)
      nlohmann::json epochs = nlohmann::json::array(), factors = nlohmann::json::array();
      for (const EpochDecay& d : decay->decays) epochs.push_back(d.epoch), factors.push_back(d.factor);
      mllog.Point("opt_name", "sgd");
      mllog.Point("opt_momentum", recipe_.momentum);
      mllog.Point("opt_weight_decay", recipe_.weight_decay);
      mllog.Point("opt_learning_rate_warmup_epochs", decay->warmup_epochs);
      mllog.Point("opt_learning_rate_warmup_factor", PeakFactor());  // the peak over the base rate
      mllog.Point("opt_learning_rate_decay_boundary_epochs", epochs);
      mllog.Point("opt_learning_rate_decay_factor", factors);
    }
  }

  StatusOr<BuiltModel> BuildModel() override {
    model_ = problem_.BuildModel();
    model_.ptr()->to(recipe_.device);
    std::vector<torch::Tensor> params = model_.ptr()->parameters();
    return BuiltModel{params, {params}, {}};
  }

  std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(GradientSync& sync) override {
    return std::make_unique<torch::optim::SGD>(sync.OptimizerGroups().front(), torch::optim::SGDOptions(recipe_.lr)
                                                                                   .momentum(recipe_.momentum)
                                                                                   .nesterov(recipe_.nesterov)
                                                                                   .weight_decay(recipe_.weight_decay));
  }

  StatusOr<TrainingPlan> Load() override {
    RETURN_IF_ERROR(problem_.Load());
    const int world_size = comm_.world_size();
    train_count_ = recipe_.train_samples > 0 ? std::min(recipe_.train_samples, problem_.train_count())
                                             : problem_.train_count();
    steps_per_epoch_ = StepsPerEpoch(train_count_, world_size, StepSamples());
    if (steps_per_epoch_ == 0) {
      return Status::InvalidArgument(
          "spec.hyperparameters.batchSize: " + std::to_string(recipe_.batch) +
          (recipe_.accumulation > 1 ? " × gradientAccumulation " + std::to_string(recipe_.accumulation) : "") +
          " per worker is more than " + std::to_string(train_count_) + " samples over " + std::to_string(world_size) +
          " ranks can fill");
    }
    context_.mllog.Point("train_samples", train_count_);
    context_.mllog.Point("eval_samples", problem_.test_count());
    if (recipe_.polynomial) {  // the steps from the end of the warm-up to the last
      const double decay_epochs = static_cast<double>(recipe_.max_epochs) - recipe_.polynomial->warmup_epochs;
      context_.mllog.Point("sgd_opt_learning_rate_decay_steps",
                           static_cast<int64_t>(std::llround(std::max(0.0, decay_epochs) * steps_per_epoch_)));
    }
    return TrainingPlan{steps_per_epoch_, steps_per_epoch_ * recipe_.max_epochs};
  }

  void BeginEpoch(int64_t epoch) override {
    context_.mllog.Start("epoch_start", {{"epoch_num", epoch}});
    epoch_ = epoch;
    const uint64_t seed = static_cast<uint64_t>(recipe_.seed);
    shard_ = ShardIndices(train_count_, comm_.world_size(), comm_.rank(), epoch, seed);
    const uint64_t stream = RankStreamSeed(recipe_.seed, comm_.rank(), epoch);
    rng_ = SplitMix64(stream);
    problem_.WillTrain({shard_.begin(), shard_.begin() + steps_per_epoch_ * StepSamples()}, recipe_.batch, stream);
    model_.ptr()->train();
    epoch_loss_ = 0;
  }

  // The rate of a step, by the recipe's schedule.
  double LearningRate(int64_t update) const override {
    if (const std::optional<EpochDecayLr>& decay = recipe_.epoch_decay) {
      return WarmupEpochDecayLr(update / steps_per_epoch_, recipe_.lr, PeakLr(), decay->warmup_epochs, decay->decays);
    }
    const double progress = static_cast<double>(update) / steps_per_epoch_;
    if (!recipe_.polynomial) return schedule_.At(progress);
    return WarmupPolynomialLr(progress + 1.0 / steps_per_epoch_, recipe_.polynomial->warmup_epochs,
                              static_cast<double>(recipe_.max_epochs), recipe_.lr * comm_.world_size(),
                              recipe_.polynomial->power, recipe_.polynomial->end);
  }

  // A step's micro-batches are consecutive in the shard; each one's loss is its share of the
  // step's mean, so that their gradients add up to the gradient of the step's samples.
  StepWork WorkOf(int64_t step) override {
    const int64_t first = step % steps_per_epoch_ * StepSamples();
    StepWork work;
    work.micro_batches = recipe_.accumulation;
    work.samples = StepSamples();
    work.load = [this, first](int64_t micro) {
      RETURN_IF_ERROR(problem_.TrainBatch(shard_.data() + first + micro * recipe_.batch, recipe_.batch, rng_,
                                          &inputs_, &targets_));
      device_inputs_ = inputs_.to(recipe_.device);
      device_targets_ = targets_.to(recipe_.device);
      return Status::Ok();
    };
    work.loss = [this](int64_t) {
      torch::Tensor outputs;
      {
        Autocast autocast(recipe_.device, recipe_.precision);
        outputs = model_.forward(device_inputs_);
      }
      return problem_.LossSum(outputs.to(torch::kFloat), device_targets_) / static_cast<double>(StepSamples());
    };
    return work;
  }

  // Progress ten times an epoch; an evaluation after its last step.
  bool AfterStep(int64_t step, double loss) override {
    const int64_t done = step % steps_per_epoch_ + 1;
    epoch_loss_ += loss;
    if (done % std::max<int64_t>(1, steps_per_epoch_ / 10) == 0) {
      ReportEpochProgress(context_.progress, epoch_, done, steps_per_epoch_, epoch_loss_ / static_cast<double>(done),
                          metric_.name, metric_value_);
    }
    return done == steps_per_epoch_;
  }

  void EndEpoch(int64_t epoch) override { context_.mllog.Stop("epoch_stop", {{"epoch_num", epoch}}); }

  StatusOr<bool> Evaluate(int64_t step, const RunClock& clock) override {
    const double train_loss = epoch_loss_ / static_cast<double>(steps_per_epoch_);
    context_.metrics.SetTrainLoss(train_loss);
    double value = 0;
    double eval_loss = 0;
    RETURN_IF_ERROR(EvaluateSharded(comm_, model_, problem_, &value, &eval_loss));
    metric_value_ = value;
    if (metric_.name == "accuracy") context_.metrics.SetEvalAccuracy(value);
    if (metric_.name == "mae") context_.metrics.SetEvalMeanAbsoluteError(value);
    // The curves `ergobench report --html` draws (cli/report/training_curves.h).
    context_.mllog.Point("train_loss", train_loss, {{"epoch_num", epoch_}});
    context_.mllog.Point("eval_loss", eval_loss, {{"epoch_num", epoch_}});
    context_.mllog.Point(metric_.mllog_key, value, {{"epoch_num", epoch_}});
    if (!recipe_.polynomial && !recipe_.epoch_decay) schedule_.OnValidationLoss(eval_loss);
    if (comm_.rank() == 0) {
      std::printf("[%s] epoch %lld: train loss %.4f, eval loss %.4f, %s %.4f, next lr %.4g, %s\n",
                  context_.benchmark.spec.task.c_str(), static_cast<long long>(epoch_), train_loss, eval_loss,
                  metric_.name.c_str(), value, LearningRate(step + 1), FormatSeconds(clock.Elapsed()).c_str());
      std::fflush(stdout);
    }
    ReportEpochProgress(context_.progress, epoch_, steps_per_epoch_, steps_per_epoch_, train_loss, metric_.name,
                        metric_value_);
    if (!recipe_.goal) return false;
    return metric_.higher_is_better ? value >= *recipe_.goal : value <= *recipe_.goal;
  }

  std::optional<LoadingWork> TrainingDataWork() override { return problem_.TrainingDataWork(); }

  std::string Summary(const Figures& figures) const override {
    std::string goal_text;
    if (recipe_.goal) {
      goal_text = figures.goal_reached.value_or(false) ? ", goal reached in " + FormatSeconds(*figures.time_to_accuracy_seconds)
                                                 : ", goal not reached";
    }
    char summary[256];
    std::snprintf(summary, sizeof summary, "%s %.4f after %lld epochs%s, %.1f samples/s/rank, communication %.1f%%",
                  metric_.name.c_str(), metric_value_.value_or(0),
                  static_cast<long long>(*figures.epochs), goal_text.c_str(), figures.samples_per_second.value_or(0),
                  100 * figures.communication_ratio.value_or(0));
    return summary;
  }

 private:
  int64_t StepSamples() const { return recipe_.batch * recipe_.accumulation; }
  // CosmoFlow's peak: learningRate scaled linearly from its base batch to the global batch.
  double PeakFactor() const {
    return static_cast<double>(StepSamples() * comm_.world_size()) / static_cast<double>(recipe_.epoch_decay->base_batch);
  }
  double PeakLr() const { return recipe_.lr * PeakFactor(); }

  TaskContext& context_;
  Communicator& comm_;
  TrainingProblem& problem_;
  const SgdRecipe& recipe_;
  LrSchedule schedule_;
  torch::nn::AnyModule model_;
  int64_t train_count_ = 0;
  int64_t steps_per_epoch_ = 0;
  int64_t epoch_ = 0;
  std::vector<int64_t> shard_;
  SplitMix64 rng_{0};
  torch::Tensor inputs_;  // made on the host by the problem, copied to the training device
  torch::Tensor targets_;
  torch::Tensor device_inputs_;
  torch::Tensor device_targets_;
  EvalMetric metric_;
  double epoch_loss_ = 0;               // summed over this epoch's steps
  std::optional<double> metric_value_;  // the last evaluation's
};

}  // namespace

Status EvaluateSharded(Communicator& comm, torch::nn::AnyModule& model, TrainingProblem& problem, double* metric,
                       double* loss) {
  RETURN_IF_ERROR(BroadcastFromRankZero(comm, model.ptr()->buffers()));
  torch::NoGradGuard no_grad;
  model.ptr()->eval();
  const std::vector<torch::Tensor> parameters = model.ptr()->parameters();
  const torch::Device device = parameters.empty() ? torch::Device(torch::kCPU) : parameters.front().device();
  const int64_t count = problem.test_count();
  const int64_t k = comm.world_size();
  const int64_t begin = count * comm.rank() / k;
  const int64_t end = count * (comm.rank() + 1) / k;
  const int64_t batch = problem.test_batch();
  double sums[3] = {0, 0, 0};  // metric, loss, samples
  torch::Tensor inputs;
  torch::Tensor targets;
  problem.WillTest(begin, end, batch);
  for (int64_t start = begin; start < end; start += batch) {
    const int64_t n = std::min(batch, end - start);
    RETURN_IF_ERROR(problem.TestBatch(start, n, &inputs, &targets));
    inputs = inputs.to(device);
    targets = targets.to(device);
    torch::Tensor outputs = model.forward(inputs);
    sums[0] += problem.MetricSum(outputs, targets).item<double>();
    sums[1] += problem.LossSum(outputs, targets).item<double>();
    sums[2] += static_cast<double>(n);
  }
  RETURN_IF_ERROR(comm.AllReduce(sums, 3, DType::kFloat64, ReduceOp::kSum));
  *metric = sums[0] / sums[2];
  *loss = sums[1] / sums[2];
  return Status::Ok();
}

StatusOr<SgdRecipe> ReadSgdRecipe(const BenchmarkSpec& spec) {
  RecipeReader read(spec.hyperparameters);
  SgdRecipe recipe;
  recipe.batch = read.Int("batchSize");
  recipe.accumulation = read.Int("gradientAccumulation");
  recipe.lr = read.Number("learningRate");
  recipe.momentum = read.Number("momentum");
  recipe.nesterov = read.Bool("nesterov");
  recipe.weight_decay = read.Number("weightDecay");
  if (spec.hyperparameters.contains("lrDecayPower")) {
    recipe.polynomial = PolynomialLr{read.Number("lrWarmupEpochs"), read.Number("lrDecayPower"), read.Number("lrEnd")};
  } else if (spec.hyperparameters.contains("lrDecay1Epoch")) {
    EpochDecayLr decay{read.Int("lrBaseBatch"), read.Int("lrWarmupEpochs"), {}};
    for (const char* n : {"1", "2"}) {  // an epoch of 0: no such boundary
      const int64_t epoch = read.Int(std::string("lrDecay") + n + "Epoch");
      const double factor = read.Number(std::string("lrDecay") + n + "Factor");
      if (epoch > 0) decay.decays.push_back({epoch, factor});
    }
    std::sort(decay.decays.begin(), decay.decays.end(), [](const auto& a, const auto& b) { return a.epoch < b.epoch; });
    recipe.epoch_decay = decay;
  } else {
    recipe.plateau_factor = read.Number("plateauFactor");
    recipe.plateau_patience = static_cast<int>(read.Int("plateauPatience"));
  }
  recipe.seed = read.Int("seed");
  recipe.warmup_steps = read.Int("warmupSteps");
  recipe.train_samples = read.Int("trainSamples");
  recipe.sync = ReadGradientSyncOptions(read);
  recipe.precision = read.String("precision");
  RETURN_IF_ERROR(read.status());
  ASSIGN_OR_RETURN(recipe.device, TrainingDevice(spec));
  ASSIGN_OR_RETURN(recipe.precision, ResolvePrecision(recipe.precision, recipe.device));
  recipe.max_epochs = spec.max_epochs.value_or(1);
  if (spec.dataset.source != "synthetic" && spec.goal) recipe.goal = spec.goal->target;
  return recipe;
}

StatusOr<TaskOutcome> TrainSyncSgd(TaskContext& context, TrainingProblem& problem, const SgdRecipe& recipe) {
  SgdTrainee trainee(context, problem, recipe);
  return RunTrainingLoop(context, trainee);
}

}  // namespace ergobench
