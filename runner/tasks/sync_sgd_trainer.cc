#include "runner/tasks/sync_sgd_trainer.h"

#include <chrono>
#include <cstdio>
#include <map>

#include "api/units.h"
#include "runner/dist/communicator.h"
#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/progress_writer.h"
#include "runner/stop_signal.h"
#include "runner/tasks/lr_schedule.h"
#include "runner/tasks/phase_timer.h"
#include "runner/tasks/run_clock.h"

namespace ergobench {
namespace {


// The full test set, sharded across ranks (each a contiguous slice), summed with one
// all-reduce. Buffers (batch-norm statistics) come from rank 0 first, as DDP does, so
// every rank evaluates the same model.
Status Evaluate(Communicator& comm, torch::nn::AnyModule& model, TrainingProblem& problem, double* accuracy,
                double* loss) {
  RETURN_IF_ERROR(BroadcastFromRankZero(comm, model.ptr()->buffers()));
  torch::NoGradGuard no_grad;
  model.ptr()->eval();
  const int64_t count = problem.test_count();
  const int64_t k = comm.world_size();
  const int64_t end = count * (comm.rank() + 1) / k;
  constexpr int64_t kBatch = 500;
  double sums[3] = {0, 0, 0};  // correct, loss, samples
  torch::Tensor inputs;
  torch::Tensor targets;
  for (int64_t start = count * comm.rank() / k; start < end; start += kBatch) {
    const int64_t n = std::min(kBatch, end - start);
    problem.TestBatch(start, n, &inputs, &targets);
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

}  // namespace

Status BroadcastFromRankZero(Communicator& comm, std::vector<torch::Tensor> tensors) {
  torch::NoGradGuard no_grad;
  for (torch::Tensor& t : tensors) {
    if (t.scalar_type() != torch::kFloat && t.scalar_type() != torch::kLong) continue;
    torch::Tensor contiguous = t.contiguous();
    const DType dtype = t.scalar_type() == torch::kFloat ? DType::kFloat32 : DType::kInt64;
    RETURN_IF_ERROR(comm.Broadcast(contiguous.data_ptr(), static_cast<size_t>(contiguous.numel()), dtype, 0));
    if (!contiguous.is_same(t)) t.copy_(contiguous);
  }
  return Status::Ok();
}

GradientBuffer::GradientBuffer(std::vector<torch::Tensor> params) : params_(std::move(params)) {
  int64_t total = 0;
  for (const torch::Tensor& p : params_) total += p.numel();
  flat_ = torch::zeros({total});
}

void GradientBuffer::Pack() {
  int64_t offset = 0;
  for (const torch::Tensor& p : params_) {
    torch::Tensor slice = flat_.slice(0, offset, offset + p.numel());
    p.grad().defined() ? slice.copy_(p.grad().reshape({-1})) : slice.zero_();
    offset += p.numel();
  }
}

void GradientBuffer::UnpackAveraged(int world_size) {
  flat_.div_(world_size);
  int64_t offset = 0;
  for (torch::Tensor& p : params_) {
    if (p.grad().defined()) p.mutable_grad().copy_(flat_.slice(0, offset, offset + p.numel()).view(p.sizes()));
    offset += p.numel();
  }
}

SgdRecipe ReadSgdRecipe(const BenchmarkSpec& spec) {
  const nlohmann::json& h = spec.hyperparameters;
  SgdRecipe r;
  r.batch = h.at("batchSize").get<int64_t>();
  r.lr = h.at("learningRate").get<double>();
  r.momentum = h.at("momentum").get<double>();
  r.nesterov = h.at("nesterov").get<bool>();
  r.weight_decay = h.at("weightDecay").get<double>();
  r.plateau_factor = h.at("plateauFactor").get<double>();
  r.plateau_patience = h.at("plateauPatience").get<int>();
  r.seed = h.at("seed").get<int64_t>();
  r.warmup_steps = h.at("warmupSteps").get<int64_t>();
  r.train_samples = h.at("trainSamples").get<int64_t>();
  r.max_epochs = spec.max_epochs.value_or(1);
  if (spec.dataset.source != "synthetic" && spec.goal) r.goal = spec.goal->target;
  return r;
}

StatusOr<TaskOutcome> TrainSyncSgd(TaskContext& context, TrainingProblem& problem, const SgdRecipe& recipe) {
  Communicator& comm = context.communicator;
  const int k = comm.world_size();
  MlLog& mllog = context.mllog;
  mllog.Point("submission_benchmark", context.benchmark.spec.task);
  mllog.Point("seed", recipe.seed);
  mllog.Point("global_batch_size", recipe.batch * k);
  mllog.Point("opt_base_learning_rate", recipe.lr);
  // Initialisation, reported apart from time to accuracy: the model and the optimizer.
  RunClock clock(mllog, context.metrics, recipe.warmup_steps);
  torch::manual_seed(static_cast<uint64_t>(recipe.seed));
  torch::nn::AnyModule model = problem.BuildModel();
  std::vector<torch::Tensor> params = model.ptr()->parameters();
  RETURN_IF_ERROR(BroadcastFromRankZero(comm, params));
  torch::optim::SGD optimizer(params, torch::optim::SGDOptions(recipe.lr)
                                          .momentum(recipe.momentum)
                                          .nesterov(recipe.nesterov)
                                          .weight_decay(recipe.weight_decay));
  LrSchedule schedule(recipe.lr, k, recipe.plateau_factor, recipe.plateau_patience);
  GradientBuffer gradients(params);
  TaskOutcome outcome;
  Figures& f = outcome.figures;
  clock.StartRun(&f);
  RETURN_IF_ERROR(problem.Load());
  const int64_t train_count =
      recipe.train_samples > 0 ? std::min(recipe.train_samples, problem.train_count()) : problem.train_count();
  const int64_t steps_per_epoch = StepsPerEpoch(train_count, k, recipe.batch);
  if (steps_per_epoch == 0) {
    return Status::InvalidArgument("spec.hyperparameters.batchSize: " + std::to_string(recipe.batch) +
                                   " per worker is more than " + std::to_string(train_count) + " samples over " +
                                   std::to_string(k) + " ranks can fill");
  }
  mllog.Point("train_samples", train_count);
  mllog.Point("eval_samples", problem.test_count());

  PhaseTimer phases(context.metrics);
  const auto timed = [&](const char* phase, auto&& fn) { phases.Time(phase, fn); };

  std::optional<double> accuracy;
  int64_t epoch = 0;
  torch::Tensor inputs;
  torch::Tensor targets;
  for (epoch = 1; epoch <= recipe.max_epochs; ++epoch) {
    mllog.Start("epoch_start", {{"epoch_num", epoch}});
    context.metrics.SetEpoch(epoch);
    const std::vector<int64_t> shard = ShardIndices(train_count, k, comm.rank(), epoch, static_cast<uint64_t>(recipe.seed));
    SplitMix64 rng(static_cast<uint64_t>(recipe.seed) * 1000003u + static_cast<uint64_t>(comm.rank()) * 7919u +
                   static_cast<uint64_t>(epoch));
    model.ptr()->train();
    double loss_sum = 0;
    for (int64_t step = 0; step < steps_per_epoch; ++step) {
      if (step % 25 == 0) RETURN_IF_ERROR(AgreeToContinue(comm, "during training"));
      const auto step_start = std::chrono::steady_clock::now();
      timed("data", [&] { problem.TrainBatch(shard.data() + step * recipe.batch, recipe.batch, rng, &inputs, &targets); });
      const double lr = schedule.At(static_cast<double>(epoch - 1) + static_cast<double>(step) / steps_per_epoch);
      for (auto& group : optimizer.param_groups()) static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
      torch::Tensor loss;
      timed("forward", [&] { loss = problem.LossSum(model.forward(inputs), targets) / static_cast<double>(recipe.batch); });
      timed("backward", [&] {
        optimizer.zero_grad();
        loss.backward();
      });
      timed("optimizer", [&] { gradients.Pack(); });
      Status reduced = Status::Ok();
      timed("communication", [&] { reduced = comm.AllReduce(gradients.data(), gradients.size(), DType::kFloat32, ReduceOp::kSum); });
      RETURN_IF_ERROR(reduced);
      timed("optimizer", [&] {
        gradients.UnpackAveraged(k);
        optimizer.step();
      });
      loss_sum += loss.item<double>();
      clock.Step(SecondsSince(step_start), recipe.batch);
      if ((step + 1) % std::max<int64_t>(1, steps_per_epoch / 10) == 0) {
        ReportEpochProgress(context.progress, epoch, step + 1, steps_per_epoch, loss_sum / static_cast<double>(step + 1),
                            accuracy);
      }
    }
    mllog.Stop("epoch_stop", {{"epoch_num", epoch}});
    const double train_loss = loss_sum / static_cast<double>(steps_per_epoch);
    context.metrics.SetTrainLoss(train_loss);

    double eval_accuracy = 0;
    double eval_loss = 0;
    Status evaluated = Status::Ok();
    timed("eval", [&] { evaluated = Evaluate(comm, model, problem, &eval_accuracy, &eval_loss); });
    RETURN_IF_ERROR(evaluated);
    accuracy = eval_accuracy;
    context.metrics.SetEvalAccuracy(eval_accuracy);
    mllog.Point("eval_accuracy", eval_accuracy, {{"epoch_num", epoch}});
    schedule.OnValidationLoss(eval_loss);
    if (comm.rank() == 0) {
      std::printf("[%s] epoch %lld: train loss %.4f, eval loss %.4f, accuracy %.4f, next lr %.4g, %s\n",
                  context.benchmark.spec.task.c_str(), static_cast<long long>(epoch), train_loss, eval_loss,
                  eval_accuracy, schedule.At(static_cast<double>(epoch)), FormatSeconds(clock.Elapsed()).c_str());
      std::fflush(stdout);
    }
    ReportEpochProgress(context.progress, epoch, steps_per_epoch, steps_per_epoch, train_loss, accuracy);
    if (recipe.goal && eval_accuracy >= *recipe.goal) {
      clock.ReachGoal(&f);
      break;
    }
  }
  clock.StopRun(recipe.goal.has_value(), &f);
  const bool reached = f.goal_reached.value_or(false);
  f.epochs = std::min(epoch, recipe.max_epochs);
  phases.Report(&f);
  std::string goal_text;
  if (recipe.goal) goal_text = reached ? ", goal reached in " + FormatSeconds(*f.time_to_accuracy_seconds) : ", goal not reached";
  char summary[256];
  std::snprintf(summary, sizeof summary, "accuracy %.4f after %lld epochs%s, %.1f samples/s/rank, communication %.1f%%",
                accuracy.value_or(0), static_cast<long long>(*f.epochs), goal_text.c_str(),
                f.samples_per_second.value_or(0), 100 * f.communication_ratio.value_or(0));
  outcome.summary = summary;
  return outcome;
}

}  // namespace ergobench
