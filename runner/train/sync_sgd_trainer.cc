#include "runner/train/sync_sgd_trainer.h"

#include <cstdio>

#include "base/units.h"
#include "runner/dist/communicator.h"
#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/metrics/tensor_memory.h"
#include "runner/progress_writer.h"
#include "runner/train/lr_schedule.h"
#include "runner/train/memory_accounting.h"
#include "runner/train/parameter_digest.h"
#include "runner/train/phase_timer.h"
#include "runner/train/recipe_reader.h"
#include "runner/train/run_clock.h"
#include "runner/train/step_driver.h"

namespace ergobench {
namespace {


void ReportEpochProgress(ProgressWriter& progress, int64_t epoch, int64_t done, int64_t total, double loss,
                         std::optional<double> accuracy) {
  ProgressEvent event;
  event.stage = "run";
  event.epoch = epoch;
  event.done = done;
  event.total = total;
  event.loss = loss;
  event.metric = "accuracy";
  event.value = accuracy;
  progress.Report(event);
}

// One run of synchronous SGD: initialisation, then epochs of training and evaluation until
// the goal or maxEpochs, each step taken by the StepDriver.
class SgdTraining {
 public:
  SgdTraining(TaskContext& context, TrainingProblem& problem, const SgdRecipe& recipe)
      : context_(context),
        comm_(context.communicator),
        problem_(problem),
        recipe_(recipe),
        clock_(context.mllog, context.metrics, recipe.warmup_steps),
        phases_(context.metrics),
        schedule_(recipe.lr, comm_.world_size(), recipe.plateau_factor, recipe.plateau_patience) {}

  StatusOr<TaskOutcome> Run() {
    LogRecipe();
    RETURN_IF_ERROR(Initialise());
    Figures& figures = outcome_.figures;
    clock_.StartRun(&figures);
    RETURN_IF_ERROR(LoadData());
    int64_t epoch = 1;
    for (; epoch <= recipe_.max_epochs; ++epoch) {
      ASSIGN_OR_RETURN(const double train_loss, TrainEpoch(epoch));
      ASSIGN_OR_RETURN(const bool reached, EvaluateEpoch(epoch, train_loss));
      if (reached) {
        clock_.ReachGoal(&figures);
        break;
      }
    }
    clock_.StopRun(recipe_.goal.has_value(), &figures);
    figures.epochs = std::min(epoch, recipe_.max_epochs);
    figures.parameter_digest = ParameterDigest(model_.ptr()->parameters());
    figures.memory = PublishMemory(context_.metrics, driver_->peak_tensor_bytes(), *sync_, *optimizer_);
    phases_.Report(&figures);
    outcome_.summary = Summary();
    return outcome_;
  }

 private:
  void LogRecipe() {
    MlLog& mllog = context_.mllog;
    mllog.Point("submission_benchmark", context_.benchmark.spec.task);
    mllog.Point("seed", recipe_.seed);
    mllog.Point("global_batch_size", recipe_.batch * comm_.world_size());
    mllog.Point("opt_base_learning_rate", recipe_.lr);
  }

  // Initialisation, reported apart from time to accuracy: the model and the optimizer.
  Status Initialise() {
    torch::manual_seed(static_cast<uint64_t>(recipe_.seed));
    TensorMemory* memory = TensorMemory::Install();  // before the model: its parameters count
    model_ = problem_.BuildModel();
    const std::vector<torch::Tensor> params = model_.ptr()->parameters();
    RETURN_IF_ERROR(BroadcastFromRankZero(comm_, params));
    ASSIGN_OR_RETURN(sync_, MakeGradientSync(recipe_.sync, comm_, {params}));
    optimizer_ = std::make_unique<torch::optim::SGD>(sync_->OptimizerGroups().front(),
                                                     torch::optim::SGDOptions(recipe_.lr)
                                                         .momentum(recipe_.momentum)
                                                         .nesterov(recipe_.nesterov)
                                                         .weight_decay(recipe_.weight_decay));
    driver_ = std::make_unique<StepDriver>(comm_, clock_, phases_, *sync_, *optimizer_, memory);
    return Status::Ok();
  }

  // Reading the data counts towards time to accuracy: this comes after run_start.
  Status LoadData() {
    RETURN_IF_ERROR(problem_.Load());
    const int world_size = comm_.world_size();
    train_count_ = recipe_.train_samples > 0 ? std::min(recipe_.train_samples, problem_.train_count())
                                             : problem_.train_count();
    steps_per_epoch_ = StepsPerEpoch(train_count_, world_size, recipe_.batch);
    if (steps_per_epoch_ == 0) {
      return Status::InvalidArgument("spec.hyperparameters.batchSize: " + std::to_string(recipe_.batch) +
                                     " per worker is more than " + std::to_string(train_count_) + " samples over " +
                                     std::to_string(world_size) + " ranks can fill");
    }
    context_.mllog.Point("train_samples", train_count_);
    context_.mllog.Point("eval_samples", problem_.test_count());
    return Status::Ok();
  }

  // Every step of this rank's shard of the epoch; returns the mean training loss.
  StatusOr<double> TrainEpoch(int64_t epoch) {
    context_.mllog.Start("epoch_start", {{"epoch_num", epoch}});
    context_.metrics.SetEpoch(epoch);
    const uint64_t seed = static_cast<uint64_t>(recipe_.seed);
    const std::vector<int64_t> shard = ShardIndices(train_count_, comm_.world_size(), comm_.rank(), epoch, seed);
    const uint64_t stream = RankStreamSeed(recipe_.seed, comm_.rank(), epoch);
    SplitMix64 rng(stream);
    problem_.WillTrain({shard.begin(), shard.begin() + steps_per_epoch_ * recipe_.batch}, recipe_.batch, stream);
    model_.ptr()->train();
    torch::Tensor inputs;
    torch::Tensor targets;
    int64_t step = 0;
    StepWork work;
    work.samples = recipe_.batch;
    work.load = [&](int64_t) {
      return problem_.TrainBatch(shard.data() + step * recipe_.batch, recipe_.batch, rng, &inputs, &targets);
    };
    work.loss = [&](int64_t) {
      return problem_.LossSum(model_.forward(inputs), targets) / static_cast<double>(recipe_.batch);
    };
    const int64_t report_every = std::max<int64_t>(1, steps_per_epoch_ / 10);
    double loss_sum = 0;
    for (; step < steps_per_epoch_; ++step) {
      const double lr = LearningRate(epoch, step);
      for (auto& group : optimizer_->param_groups()) static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
      // Counted within the epoch: every epoch begins with a stop check, however short it is.
      ASSIGN_OR_RETURN(const double loss, driver_->Step(step, work));
      loss_sum += loss;
      if ((step + 1) % report_every == 0) {
        ReportEpochProgress(context_.progress, epoch, step + 1, steps_per_epoch_,
                            loss_sum / static_cast<double>(step + 1), accuracy_);
      }
    }
    context_.mllog.Stop("epoch_stop", {{"epoch_num", epoch}});
    return loss_sum / static_cast<double>(steps_per_epoch_);
  }

  // The rate of an epoch's step, by the recipe's schedule.
  double LearningRate(int64_t epoch, int64_t step) const {
    const double progress = static_cast<double>(epoch - 1) + static_cast<double>(step) / steps_per_epoch_;
    if (!recipe_.polynomial) return schedule_.At(progress);
    return WarmupPolynomialLr(progress + 1.0 / steps_per_epoch_, recipe_.polynomial->warmup_epochs,
                              static_cast<double>(recipe_.max_epochs), recipe_.lr * comm_.world_size(),
                              recipe_.polynomial->power);
  }

  // The evaluation after an epoch; true when it reached the goal.
  StatusOr<bool> EvaluateEpoch(int64_t epoch, double train_loss) {
    context_.metrics.SetTrainLoss(train_loss);
    double accuracy = 0;
    double eval_loss = 0;
    Status evaluated = Status::Ok();
    phases_.Time(TrainingPhase::kEval, [&] { evaluated = EvaluateSharded(comm_, model_, problem_, &accuracy, &eval_loss); });
    RETURN_IF_ERROR(evaluated);
    PublishMemory(context_.metrics, driver_->peak_tensor_bytes(), *sync_, *optimizer_);
    accuracy_ = accuracy;
    context_.metrics.SetEvalAccuracy(accuracy);
    context_.mllog.Point("eval_accuracy", accuracy, {{"epoch_num", epoch}});
    if (!recipe_.polynomial) schedule_.OnValidationLoss(eval_loss);
    if (comm_.rank() == 0) {
      std::printf("[%s] epoch %lld: train loss %.4f, eval loss %.4f, accuracy %.4f, next lr %.4g, %s\n",
                  context_.benchmark.spec.task.c_str(), static_cast<long long>(epoch), train_loss, eval_loss, accuracy,
                  LearningRate(epoch + 1, 0), FormatSeconds(clock_.Elapsed()).c_str());
      std::fflush(stdout);
    }
    ReportEpochProgress(context_.progress, epoch, steps_per_epoch_, steps_per_epoch_, train_loss, accuracy_);
    return recipe_.goal && accuracy >= *recipe_.goal;
  }

  std::string Summary() const {
    const Figures& figures = outcome_.figures;
    std::string goal_text;
    if (recipe_.goal) {
      goal_text = figures.goal_reached.value_or(false) ? ", goal reached in " + FormatSeconds(*figures.time_to_accuracy_seconds)
                                                 : ", goal not reached";
    }
    char summary[256];
    std::snprintf(summary, sizeof summary,
                  "accuracy %.4f after %lld epochs%s, %.1f samples/s/rank, communication %.1f%%", accuracy_.value_or(0),
                  static_cast<long long>(*figures.epochs), goal_text.c_str(), figures.samples_per_second.value_or(0),
                  100 * figures.communication_ratio.value_or(0));
    return summary;
  }

  TaskContext& context_;
  Communicator& comm_;
  TrainingProblem& problem_;
  const SgdRecipe& recipe_;
  RunClock clock_;
  PhaseTimer phases_;
  LrSchedule schedule_;
  torch::nn::AnyModule model_;
  std::unique_ptr<torch::optim::SGD> optimizer_;
  std::unique_ptr<GradientSync> sync_;
  std::unique_ptr<StepDriver> driver_;
  int64_t train_count_ = 0;
  int64_t steps_per_epoch_ = 0;
  std::optional<double> accuracy_;  // the last evaluation's
  TaskOutcome outcome_;
};

}  // namespace

Status EvaluateSharded(Communicator& comm, torch::nn::AnyModule& model, TrainingProblem& problem, double* accuracy,
                       double* loss) {
  RETURN_IF_ERROR(BroadcastFromRankZero(comm, model.ptr()->buffers()));
  torch::NoGradGuard no_grad;
  model.ptr()->eval();
  const int64_t count = problem.test_count();
  const int64_t k = comm.world_size();
  const int64_t begin = count * comm.rank() / k;
  const int64_t end = count * (comm.rank() + 1) / k;
  const int64_t batch = problem.test_batch();
  double sums[3] = {0, 0, 0};  // correct, loss, samples
  torch::Tensor inputs;
  torch::Tensor targets;
  problem.WillTest(begin, end, batch);
  for (int64_t start = begin; start < end; start += batch) {
    const int64_t n = std::min(batch, end - start);
    RETURN_IF_ERROR(problem.TestBatch(start, n, &inputs, &targets));
    torch::Tensor outputs = model.forward(inputs);
    sums[0] += problem.Correct(outputs, targets).item<double>();
    sums[1] += problem.LossSum(outputs, targets).item<double>();
    sums[2] += static_cast<double>(n);
  }
  RETURN_IF_ERROR(comm.AllReduce(sums, 3, DType::kFloat64, ReduceOp::kSum));
  *accuracy = sums[0] / sums[2];
  *loss = sums[1] / sums[2];
  return Status::Ok();
}

StatusOr<SgdRecipe> ReadSgdRecipe(const BenchmarkSpec& spec) {
  RecipeReader read(spec.hyperparameters);
  SgdRecipe recipe;
  recipe.batch = read.Int("batchSize");
  recipe.lr = read.Number("learningRate");
  recipe.momentum = read.Number("momentum");
  recipe.nesterov = read.Bool("nesterov");
  recipe.weight_decay = read.Number("weightDecay");
  if (spec.hyperparameters.contains("lrDecayPower")) {
    recipe.polynomial = PolynomialLr{read.Number("lrWarmupEpochs"), read.Number("lrDecayPower")};
  } else {
    recipe.plateau_factor = read.Number("plateauFactor");
    recipe.plateau_patience = static_cast<int>(read.Int("plateauPatience"));
  }
  recipe.seed = read.Int("seed");
  recipe.warmup_steps = read.Int("warmupSteps");
  recipe.train_samples = read.Int("trainSamples");
  recipe.sync = ReadGradientSyncOptions(read);
  RETURN_IF_ERROR(read.status());
  recipe.max_epochs = spec.max_epochs.value_or(1);
  if (spec.dataset.source != "synthetic" && spec.goal) recipe.goal = spec.goal->target;
  return recipe;
}

StatusOr<TaskOutcome> TrainSyncSgd(TaskContext& context, TrainingProblem& problem, const SgdRecipe& recipe) {
  SgdTraining training(context, problem, recipe);
  return training.Run();
}

}  // namespace ergobench
