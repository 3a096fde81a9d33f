// The loop's order, as a scripted trainee records it: epochs of steps at the trainee's rates,
// an evaluation where it asks for one, the end at the goal or the last step, and the figures.
#include "runner/train/training_loop.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/progress_writer.h"
#include "tests/testing/loopback_ranks.h"

namespace ergobench {
namespace {

// One weight w, loss (w - 3)^2 on every step: plain SGD at rate 0.1 moves w from 0 by
// 0.6 × 0.8^(n-1) at step n.
class ScriptedTrainee : public Trainee {
 public:
  ScriptedTrainee(TrainingPlan plan, int64_t evaluate_every, int64_t goal_at_evaluation)
      : plan_(plan), evaluate_every_(evaluate_every), goal_at_evaluation_(goal_at_evaluation) {}

  int64_t seed() const override { return 7; }
  int64_t throughput_warmup_steps() const override { return 0; }
  const GradientSyncOptions& sync_options() const override { return sync_; }
  std::optional<GoalTrend> goal() const override {
    return goal_at_evaluation_ > 0 ? std::optional(GoalTrend{1.0, true}) : std::nullopt;
  }
  std::optional<LossScalerOptions> loss_scaling() const override { return scaling; }
  void LogRecipe(MlLog&) override { calls.push_back("recipe"); }

  StatusOr<BuiltModel> BuildModel() override {
    calls.push_back("model");
    weight_ = torch::zeros({1}, torch::requires_grad());
    return BuiltModel{{weight_}, {{weight_}}, {}};
  }
  std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(GradientSync& sync) override {
    return std::make_unique<torch::optim::SGD>(sync.OptimizerGroups().front(), torch::optim::SGDOptions(1));
  }
  StatusOr<TrainingPlan> Load() override {
    calls.push_back("load");
    return plan_;
  }
  void BeginEpoch(int64_t epoch) override { calls.push_back("begin " + std::to_string(epoch)); }
  double LearningRate(int64_t) const override { return 0.1; }
  StepWork WorkOf(int64_t step) override {
    calls.push_back("step " + std::to_string(step));
    StepWork work;
    work.samples = 1;
    work.load = [](int64_t) { return Status::Ok(); };
    // A step in `overflows` has an infinite loss, so inf gradients, as an fp16 overflow makes them.
    const double factor = overflows.count(step) ? INFINITY : 1.0;
    work.loss = [this, factor](int64_t) { return (weight_ - 3).pow(2).sum() * factor; };
    return work;
  }
  bool AfterStep(int64_t step, double loss) override {
    losses.push_back(loss);
    return (step + 1) % evaluate_every_ == 0;
  }
  void EndEpoch(int64_t epoch) override { calls.push_back("end " + std::to_string(epoch)); }
  StatusOr<bool> Evaluate(int64_t step, const RunClock&) override {
    calls.push_back("evaluate " + std::to_string(step));
    return ++evaluations_ == goal_at_evaluation_;
  }
  void Finish(const RunClock& clock, Figures*) override { steps_at_finish = clock.steps(); }
  std::string Summary(const Figures& figures) const override { return "epochs " + std::to_string(*figures.epochs); }

  std::optional<LossScalerOptions> scaling;
  std::set<int64_t> overflows;
  std::vector<std::string> calls;
  std::vector<double> losses;
  int64_t steps_at_finish = 0;
  torch::Tensor weight_;

 private:
  TrainingPlan plan_;
  int64_t evaluate_every_;
  int64_t goal_at_evaluation_;
  int64_t evaluations_ = 0;
  GradientSyncOptions sync_;
};

StatusOr<TaskOutcome> RunOnOneRank(ScriptedTrainee& trainee) {
  Benchmark benchmark;
  benchmark.spec.task = "test";
  StatusOr<TaskOutcome> outcome = Status::Internal("not run");
  const std::vector<Status> statuses = OnLoopbackRanks(1, [&](Communicator& comm) -> Status {
    RunnerMetrics metrics(MetricLabels{"b", "test", "gloo", 0, 1});
    ProgressWriter progress("", 0);
    MlLog mllog("");
    TaskContext context{benchmark, comm, metrics, progress, "", mllog};
    outcome = RunTrainingLoop(context, trainee);
    return outcome.status();
  });
  return statuses[0].ok() ? outcome : statuses[0];
}

TEST(TrainingLoop, EpochsOfStepsWithEvaluationsWhereTheTraineeAsks) {
  ScriptedTrainee trainee({3, 7}, 2, 0);  // 3 steps an epoch, 7 in all, no goal
  StatusOr<TaskOutcome> outcome = RunOnOneRank(trainee);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(trainee.calls,
            (std::vector<std::string>{"recipe", "model", "load", "begin 1", "step 0", "step 1", "evaluate 1", "step 2",
                                      "end 1", "begin 2", "step 3", "evaluate 3", "step 4", "step 5", "end 2",
                                      "evaluate 5", "begin 3", "step 6"}));
  EXPECT_EQ(outcome->figures.epochs, 3);
  EXPECT_EQ(outcome->summary, "epochs 3");
  EXPECT_EQ(trainee.steps_at_finish, 7);
  // (w - 3)^2 from w = 0, each step at rate 0.1: w_n = 3 - 3 × 0.8^n.
  ASSERT_EQ(trainee.losses.size(), 7u);
  for (size_t n = 0; n < 7; ++n) EXPECT_NEAR(trainee.losses[n], 9 * std::pow(0.64, n), 1e-4) << n;
  EXPECT_NEAR(trainee.weight_.item<double>(), 3 - 3 * std::pow(0.8, 7), 1e-5);
  EXPECT_FALSE(outcome->figures.goal_reached.has_value());
}

TEST(TrainingLoop, TheGoalEndsTheRunAtItsEvaluation) {
  ScriptedTrainee trainee({3, 9}, 2, 2);  // the second evaluation, after step 3, reaches it
  StatusOr<TaskOutcome> outcome = RunOnOneRank(trainee);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(trainee.calls.back(), "evaluate 3");
  EXPECT_EQ(trainee.steps_at_finish, 4);
  EXPECT_EQ(outcome->figures.epochs, 2);
  EXPECT_EQ(outcome->figures.goal_reached, true);
  ASSERT_TRUE(outcome->figures.time_to_accuracy_seconds.has_value());
  EXPECT_FALSE(outcome->figures.parameter_digest.empty());
}

// Under dynamic loss scaling (initial 1024, factor 2, window 2), steps 1 and 2 overflow: both
// updates are skipped and the scale halves twice; the second and fourth clean updates after the
// last overflow (steps 4 and 6) double it back. The result reports the scale at the end and the
// skipped updates; the weight moved on the 5 clean steps only.
TEST(TrainingLoop, LossScalingReportsTheFinalScaleAndTheSkippedUpdates) {
  ScriptedTrainee trainee({7, 7}, 7, 0);
  trainee.scaling = LossScalerOptions{1024, 2, 2, std::nullopt, 1e-4};
  trainee.overflows = {1, 2};
  StatusOr<TaskOutcome> outcome = RunOnOneRank(trainee);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->figures.loss_scale, 1024);
  EXPECT_EQ(outcome->figures.skipped_updates, 2);
  EXPECT_NEAR(trainee.weight_.item<double>(), 3 - 3 * std::pow(0.8, 5), 1e-5);
  ScriptedTrainee unscaled({3, 3}, 3, 0);
  StatusOr<TaskOutcome> plain = RunOnOneRank(unscaled);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_FALSE(plain->figures.loss_scale.has_value()) << "no scaling, no figure";
  EXPECT_FALSE(plain->figures.skipped_updates.has_value());
}

}  // namespace
}  // namespace ergobench
