// The gradient synchronisation strategies on two ranks over the real gloo backend: overlap
// must train the same model as flat (to float reassociation), start all-reducing during
// backward, and report the collectives' whole time beside the time the step waited.
#include "runner/tasks/gradient_sync.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/tasks/overlapped_gradient_sync.h"
#include "runner/tasks/recipe_reader.h"
#include "runner/tasks/step_driver.h"
#include "tests/testing/delayed_communicator.h"
#include "tests/testing/loopback_ranks.h"

namespace ergobench {
namespace {

constexpr int kRanks = 2;
constexpr double kBucketMib = 4.0 / 1024;  // 4 KiB: two buckets of Net below

// Registered first, `unused` is last in backward order: it never gets a gradient, so the
// bucket holding it waits for Synchronize, while the one of out and fc goes during backward.
struct NetImpl : torch::nn::Module {
  NetImpl()
      : unused(register_module("unused", torch::nn::Linear(5, 5))),
        conv(register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 4, 3)))),
        fc(register_module("fc", torch::nn::Linear(4 * 6 * 6, 16))),
        out(register_module("out", torch::nn::Linear(16, 3))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    return out(torch::relu(fc(torch::relu(conv(x)).flatten(1))));
  }
  torch::nn::Linear unused;
  torch::nn::Conv2d conv;
  torch::nn::Linear fc;
  torch::nn::Linear out;
};
TORCH_MODULE(Net);

Net Model() {
  torch::manual_seed(7);
  return Net();
}

std::vector<size_t> ParameterBytes(Net& net) {
  std::vector<size_t> bytes;
  for (const torch::Tensor& p : net->parameters()) bytes.push_back(static_cast<size_t>(p.numel()) * sizeof(float));
  return bytes;
}

GradientSyncOptions Options(const std::string& strategy) {
  GradientSyncOptions options;
  options.strategy = strategy;
  options.bucket_mib = kBucketMib;
  return options;
}

struct Trained {
  std::vector<std::vector<torch::Tensor>> params;  // by rank
  std::vector<Figures> figures;                    // by rank: the phases and collective seconds
};

// Every rank's micro-batches of every step, drawn up front: the ranks are threads, and the
// generator they would share draws in whatever order they run.
struct Batches {
  explicit Batches(int steps) {
    torch::manual_seed(100);
    for (int i = 0; i < kRanks * steps * 2; ++i) {
      inputs.push_back(torch::randn({4, 1, 8, 8}));
      labels.push_back(torch::randint(0, 3, {4}));
    }
  }
  size_t Index(int rank, int step, int64_t micro) const {
    return static_cast<size_t>((rank * static_cast<int>(inputs.size()) / kRanks) + step * 2 + static_cast<int>(micro));
  }
  std::vector<torch::Tensor> inputs;
  std::vector<torch::Tensor> labels;
};

// `steps` SGD steps with momentum of two micro-batches each; every rank its own data.
Trained Train(const std::string& strategy, int steps, std::chrono::milliseconds delay = {}) {
  const Batches batches(steps);
  std::vector<Net> models;
  for (int rank = 0; rank < kRanks; ++rank) models.push_back(Model());
  Trained trained{std::vector<std::vector<torch::Tensor>>(kRanks), std::vector<Figures>(kRanks)};
  const std::vector<Status> statuses = OnLoopbackRanks(kRanks, [&](Communicator& real) -> Status {
    testing::DelayedCommunicator comm(real, delay);
    const size_t rank = static_cast<size_t>(comm.rank());
    Net& model = models[rank];
    RunnerMetrics metrics(MetricLabels{"b", "t", "gloo", comm.rank(), kRanks});
    MlLog mllog("");
    RunClock clock(mllog, metrics, 0);
    PhaseTimer phases(metrics);
    ASSIGN_OR_RETURN(std::unique_ptr<GradientSync> sync, MakeGradientSync(Options(strategy), comm, model->parameters()));
    torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(1e-3));
    StepDriver driver(comm, clock, phases, *sync, optimizer);
    int step = 0;
    torch::Tensor x;
    torch::Tensor y;
    StepWork work;
    work.micro_batches = 2;
    work.samples = 8;
    work.load = [&](int64_t micro) {
      x = batches.inputs[batches.Index(comm.rank(), step, micro)];
      y = batches.labels[batches.Index(comm.rank(), step, micro)];
    };
    work.loss = [&](int64_t) { return torch::nn::functional::cross_entropy(model->forward(x), y) / 2.0; };
    for (; step < steps; ++step) RETURN_IF_ERROR(driver.Step(step, work).status());
    for (const torch::Tensor& p : model->parameters()) trained.params[rank].push_back(p.detach().clone());
    phases.Report(&trained.figures[rank]);
    return Status::Ok();
  });
  for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.ToString();
  return trained;
}

TEST(AssignBucketsTest, LastParameterFirstEachBucketClosingOnceFull) {
  // 500-byte buckets over parameters of 400, 400, 4000, 40 and 40 bytes.
  EXPECT_EQ(AssignBuckets({400, 400, 4000, 40, 40}, 500), (std::vector<std::vector<size_t>>{{4, 3, 2}, {1, 0}}));
  EXPECT_EQ(AssignBuckets({400, 400}, 1 << 20), (std::vector<std::vector<size_t>>{{1, 0}}));
  EXPECT_EQ(AssignBuckets({}, 500), (std::vector<std::vector<size_t>>{}));
  Net net = Model();
  EXPECT_EQ(AssignBuckets(ParameterBytes(net), 4096).size(), 2u);  // the premise of the tests below
}

TEST(GradientSyncTest, OverlapTrainsTheModelFlatTrains) {
  const Trained flat = Train("flat", 5);
  const Trained overlap = Train("overlap", 5);
  const Net initial = Model();
  for (int rank = 0; rank < kRanks; ++rank) {
    const auto& got = overlap.params[static_cast<size_t>(rank)];
    const auto& want = flat.params[static_cast<size_t>(rank)];
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(torch::allclose(got[i], want[i], 1e-5, 1e-6))
          << "rank " << rank << ", parameter " << i << ": max difference " << (got[i] - want[i]).abs().max().item<float>();
      EXPECT_TRUE(torch::equal(got[i], overlap.params[0][i])) << "ranks disagree on parameter " << i;
    }
  }
  // Training moved the convolution; the unused layer, with no gradient, SGD left alone in both.
  EXPECT_FALSE(torch::allclose(overlap.params[0][2], initial->conv->weight));
  EXPECT_TRUE(torch::equal(overlap.params[0][0], initial->unused->weight));
}

TEST(GradientSyncTest, ACollectiveDelayIsCountedWholeAndTheStepWaitsOnlyForWhatItCouldNotHide) {
  constexpr auto kDelay = std::chrono::milliseconds(40);
  constexpr int kSteps = 3;
  constexpr double kD = 0.040;
  const Trained overlap = Train("overlap", kSteps, kDelay);
  const Trained flat = Train("flat", kSteps, kDelay);
  for (int rank = 0; rank < kRanks; ++rank) {
    const Figures& o = overlap.figures[static_cast<size_t>(rank)];
    const Figures& f = flat.figures[static_cast<size_t>(rank)];
    // Two buckets a step, each delayed: all of it counted, and the step waited at least for
    // the bucket launched when backward ended.
    ASSERT_TRUE(o.collective_seconds);
    EXPECT_GE(*o.collective_seconds, kSteps * 2 * kD);
    EXPECT_GE(o.phase_seconds.at("communication"), kSteps * kD);
    EXPECT_LE(o.phase_seconds.at("communication"), *o.collective_seconds + 0.002 * kSteps);
    // Flat waits for its one all-reduce a step: waited and whole are the same seconds.
    ASSERT_TRUE(f.collective_seconds);
    EXPECT_GE(*f.collective_seconds, kSteps * kD);
    EXPECT_DOUBLE_EQ(*f.collective_seconds, f.phase_seconds.at("communication"));
  }
}

// Counts the all-reduces begun on this rank.
class CountingCommunicator : public testing::DelayedCommunicator {
 public:
  explicit CountingCommunicator(Communicator& inner) : DelayedCommunicator(inner, std::chrono::milliseconds(0)) {}
  Status AllReduce(void* data, size_t count, DType dtype, ReduceOp op) override {
    ++begun;
    return DelayedCommunicator::AllReduce(data, count, dtype, op);
  }
  std::atomic<int> begun{0};
};

TEST(GradientSyncTest, OverlapAllReducesAFullBucketDuringBackward) {
  const Batches batches(1);
  std::vector<Net> models;
  for (int rank = 0; rank < kRanks; ++rank) models.push_back(Model());
  const std::vector<Status> statuses = OnLoopbackRanks(kRanks, [&](Communicator& real) -> Status {
    CountingCommunicator comm(real);
    Net& model = models[static_cast<size_t>(comm.rank())];
    ASSIGN_OR_RETURN(std::unique_ptr<GradientSync> sync, MakeGradientSync(Options("overlap"), comm, model->parameters()));
    const size_t batch = batches.Index(comm.rank(), 0, 0);
    const torch::Tensor loss =
        torch::nn::functional::cross_entropy(model->forward(batches.inputs[batch]), batches.labels[batch]);
    sync->BeforeBackward(true);
    loss.backward();
    // The bucket of out and fc went on its own; the one holding the unused layer waits.
    for (int i = 0; i < 500 && comm.begun.load() < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(comm.begun.load(), 1);
    RunnerMetrics metrics(MetricLabels{"b", "t", "gloo", comm.rank(), kRanks});
    PhaseTimer phases(metrics);
    RETURN_IF_ERROR(sync->Synchronize(phases));
    EXPECT_EQ(comm.begun.load(), 2);
    return Status::Ok();
  });
  for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(GradientSyncTest, AnUnknownStrategyNamesTheField) {
  const std::vector<Status> statuses = OnLoopbackRanks(1, [&](Communicator& comm) -> Status {
    Net net = Model();
    return MakeGradientSync(Options("ring"), comm, net->parameters()).status();
  });
  EXPECT_EQ(statuses[0].message(), "spec.hyperparameters.gradientSync: \"ring\" is not one of flat, overlap");
}

TEST(GradientSyncTest, OptionsComeFromTheHyperparameters) {
  const nlohmann::json hyperparameters = {{"gradientSync", "overlap"}, {"bucketMiB", 2.5}};
  RecipeReader read(hyperparameters);  // reads it in place
  const GradientSyncOptions options = ReadGradientSyncOptions(read);
  EXPECT_TRUE(read.status().ok());
  EXPECT_EQ(options.strategy, "overlap");
  EXPECT_EQ(options.bucket_mib, 2.5);
}

}  // namespace
}  // namespace ergobench
