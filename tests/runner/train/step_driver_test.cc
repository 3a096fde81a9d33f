// The step driver against plain single-process autograd: k ranks, each accumulating its
// micro-batches, must take the optimizer step of the whole global batch.
#include "runner/train/step_driver.h"

#include <gtest/gtest.h>

#include <limits>

#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "tests/testing/loopback_ranks.h"

namespace ergobench {
namespace {

constexpr int kRanks = 2;
constexpr int64_t kMicroBatches = 2;
constexpr int64_t kMicroBatch = 2;
constexpr int64_t kGlobalBatch = kRanks * kMicroBatches * kMicroBatch;  // 8
constexpr double kLearningRate = 0.1;

torch::nn::Linear Model() {
  torch::manual_seed(5);
  return torch::nn::Linear(3, 1);
}

// Each gradient-sync strategy (gradient_sync.h) must give the same step: "flat", "overlap",
// "sharded1" and "sharded2" (the ZeRO stage last).
class StepDriverTest : public ::testing::TestWithParam<std::string> {
 protected:
  static GradientSyncOptions Options() {
    GradientSyncOptions options;
    options.strategy = GetParam().substr(0, GetParam().find_first_of("12"));
    if (options.strategy == "sharded") options.zero_stage = GetParam().back() - '0';
    return options;
  }
};

TEST_P(StepDriverTest, AccumulatedMicroBatchesOnEveryRankTakeTheGlobalBatchStep) {
  torch::manual_seed(9);
  const torch::Tensor inputs = torch::randn({kGlobalBatch, 3});
  const torch::Tensor labels = torch::randn({kGlobalBatch, 1});

  // Ground truth: one process, the mean squared error of all 8 samples, one SGD step.
  torch::nn::Linear single = Model();
  torch::nn::functional::mse_loss(single->forward(inputs), labels).backward();
  // What the optimizer sees: the parameters in model order, or (sharded) this rank's block of
  // the one unit [bias, weight], the last parameter first, two elements a rank.
  const bool sharded = Options().strategy == "sharded";
  const torch::Tensor weight_grad = single->weight.grad().reshape({-1});
  const torch::Tensor expected_gradient = sharded ? torch::cat({single->bias.grad(), weight_grad})
                                                  : torch::cat({weight_grad, single->bias.grad()});
  const torch::Tensor expected_weight = (single->weight - kLearningRate * single->weight.grad()).detach();

  std::vector<torch::nn::Linear> models;
  for (int rank = 0; rank < kRanks; ++rank) models.push_back(Model());
  std::vector<torch::Tensor> gradients_seen(kRanks);
  std::vector<double> losses(kRanks);
  const std::vector<Status> statuses = OnLoopbackRanks(kRanks, [&](Communicator& comm) -> Status {
    torch::nn::Linear& model = models[static_cast<size_t>(comm.rank())];
    RunnerMetrics metrics(MetricLabels{"b", "t", "gloo", comm.rank(), kRanks});
    MlLog mllog("");
    RunClock clock(mllog, metrics, 0);
    PhaseTimer phases(metrics);
    ASSIGN_OR_RETURN(std::unique_ptr<GradientSync> sync, MakeGradientSync(Options(), comm, {model->parameters()}));
    torch::optim::SGD optimizer(sync->OptimizerGroups().front(), torch::optim::SGDOptions(kLearningRate));
    StepDriver driver(comm, clock, phases, *sync, optimizer);
    torch::Tensor x;
    torch::Tensor y;
    StepWork work;
    work.micro_batches = kMicroBatches;
    work.samples = kMicroBatches * kMicroBatch;
    work.load = [&](int64_t micro) {
      const int64_t first = (comm.rank() * kMicroBatches + micro) * kMicroBatch;
      x = inputs.slice(0, first, first + kMicroBatch);
      y = labels.slice(0, first, first + kMicroBatch);
      return Status::Ok();
    };
    // The mean over this rank's 4 samples, as two sums of 2.
    work.loss = [&](int64_t) {
      return torch::nn::functional::mse_loss(model->forward(x), y,
                                             torch::nn::functional::MSELossFuncOptions().reduction(torch::kSum)) /
             static_cast<double>(work.samples);
    };
    work.before_update = [&] {
      std::vector<torch::Tensor> grads;
      const ParameterGroups groups = sync->OptimizerGroups();
      for (const torch::Tensor& p : groups.front()) grads.push_back(p.grad().reshape({-1}));
      gradients_seen[static_cast<size_t>(comm.rank())] = torch::cat(grads);
      return Status::Ok();
    };
    ASSIGN_OR_RETURN(losses[static_cast<size_t>(comm.rank())], driver.Step(0, work));
    EXPECT_EQ(clock.steps(), 1);
    return Status::Ok();
  });
  for (const Status& s : statuses) ASSERT_TRUE(s.ok()) << s.ToString();

  for (int rank = 0; rank < kRanks; ++rank) {
    // The hook sees the averaged gradient of all 8 samples, before the update.
    const torch::Tensor expected = sharded ? expected_gradient.slice(0, 2 * rank, 2 * rank + 2) : expected_gradient;
    EXPECT_TRUE(torch::allclose(gradients_seen[static_cast<size_t>(rank)], expected, 1e-5, 1e-6)) << rank;
    EXPECT_TRUE(torch::allclose(models[static_cast<size_t>(rank)]->weight, expected_weight, 1e-5, 1e-6)) << rank;
  }
  // Each rank's loss is the mean over its own 4 samples; their mean is the global loss.
  const double global_loss = torch::nn::functional::mse_loss(Model()->forward(inputs), labels).item<double>();
  EXPECT_NEAR((losses[0] + losses[1]) / kRanks, global_loss, 1e-5);
}

// Mixed precision's loss scaling on each strategy: a clean step updates as without it (a
// power-of-two scale multiplies and divides exactly); a step whose gradients are inf on one
// rank is skipped on every rank (sharded: that rank's block alone holds them), the scale
// halved, the update not counted.
TEST_P(StepDriverTest, ALossScaledStepUpdatesAsWithoutAndAnOverflowSkipsOnEveryRank) {
  torch::manual_seed(9);
  const torch::Tensor inputs = torch::randn({kGlobalBatch, 3});
  const torch::Tensor labels = torch::randn({kGlobalBatch, 1});
  torch::nn::Linear single = Model();
  torch::nn::functional::mse_loss(single->forward(inputs), labels).backward();
  const torch::Tensor expected_weight = (single->weight - kLearningRate * single->weight.grad()).detach();

  std::vector<torch::nn::Linear> models;
  for (int rank = 0; rank < kRanks; ++rank) models.push_back(Model());
  const std::vector<Status> statuses = OnLoopbackRanks(kRanks, [&](Communicator& comm) -> Status {
    torch::nn::Linear& model = models[static_cast<size_t>(comm.rank())];
    RunnerMetrics metrics(MetricLabels{"b", "t", "gloo", comm.rank(), kRanks});
    MlLog mllog("");
    RunClock clock(mllog, metrics, 0);
    PhaseTimer phases(metrics);
    ASSIGN_OR_RETURN(std::unique_ptr<GradientSync> sync, MakeGradientSync(Options(), comm, {model->parameters()}));
    torch::optim::SGD optimizer(sync->OptimizerGroups().front(), torch::optim::SGDOptions(kLearningRate));
    StepDriver driver(comm, clock, phases, *sync, optimizer);
    ASSIGN_OR_RETURN(DynamicLossScaler scaler, DynamicLossScaler::Create({}));  // 1024, window 128
    driver.set_loss_scaler(&scaler);
    torch::Tensor x;
    torch::Tensor y;
    bool overflow = false;
    StepWork work;
    work.micro_batches = kMicroBatches;
    work.samples = kMicroBatches * kMicroBatch;
    work.load = [&](int64_t micro) {
      const int64_t first = (comm.rank() * kMicroBatches + micro) * kMicroBatch;
      x = inputs.slice(0, first, first + kMicroBatch);
      y = labels.slice(0, first, first + kMicroBatch);
      return Status::Ok();
    };
    work.loss = [&](int64_t micro) {
      const torch::Tensor loss =
          torch::nn::functional::mse_loss(model->forward(x), y,
                                          torch::nn::functional::MSELossFuncOptions().reduction(torch::kSum)) /
          static_cast<double>(work.samples);
      // The fp16 overflow the scaler guards against, on rank 1's second micro-batch.
      return overflow && comm.rank() == 1 && micro == 1 ? loss * std::numeric_limits<float>::infinity() : loss;
    };
    RETURN_IF_ERROR(driver.Step(0, work).status());
    EXPECT_TRUE(torch::allclose(model->weight, expected_weight, 1e-5, 1e-6)) << comm.rank();
    EXPECT_EQ(1, driver.updates());
    EXPECT_EQ(1024, scaler.scale());
    const torch::Tensor after_first = model->weight.detach().clone();
    overflow = true;
    RETURN_IF_ERROR(driver.Step(1, work).status());
    EXPECT_TRUE(torch::equal(model->weight, after_first)) << comm.rank() << ": the skipped update moved the weights";
    EXPECT_EQ(1, driver.updates());
    EXPECT_EQ(512, scaler.scale());
    EXPECT_EQ(1, scaler.skipped());
    return Status::Ok();
  });
  for (const Status& s : statuses) ASSERT_TRUE(s.ok()) << s.ToString();
}

INSTANTIATE_TEST_SUITE_P(Strategies, StepDriverTest, ::testing::Values("flat", "overlap", "sharded1", "sharded2"));

}  // namespace
}  // namespace ergobench
