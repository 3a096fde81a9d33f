// The gradient synchronisation strategies on two ranks over the real gloo backend: overlap and
// sharded must train the same model as flat (to float reassociation); overlap starts
// all-reducing during backward; sharded keeps 1/k of the optimizer state (and with stage 2 no
// whole gradient); all report the collectives' whole time beside the time the step waited.
#include "runner/sync/gradient_sync.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <thread>

#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/models/gpt.h"
#include "runner/sync/overlapped_gradient_sync.h"
#include "runner/sync/sharded_gradient_sync.h"
#include "runner/train/memory_accounting.h"
#include "runner/train/recipe_reader.h"
#include "runner/train/step_driver.h"
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

// "flat", "overlap", or "sharded1" to "sharded3" (the ZeRO stage last).
GradientSyncOptions Options(const std::string& strategy) {
  GradientSyncOptions options;
  options.strategy = strategy.substr(0, strategy.find_first_of("123"));
  if (options.strategy == "sharded") options.zero_stage = strategy.back() - '0';
  options.bucket_mib = kBucketMib;
  return options;
}

struct Trained {
  std::vector<std::vector<torch::Tensor>> params;  // by rank
  std::vector<Figures> figures;                    // by rank: the phases and collective seconds
  std::vector<int64_t> optimizer_state;            // by rank: bytes of momentum held
  std::vector<int64_t> gradient_bytes;             // by rank: what the strategy keeps
  std::vector<int> whole_gradients;                // by rank: parameters with .grad after training
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

// `steps` SGD steps with momentum of two micro-batches each; every rank its own data. With
// `clip`, the averaged gradients are clipped to that norm before each update.
Trained Train(const std::string& strategy, int steps, std::chrono::milliseconds delay = {}, double clip = 0) {
  const Batches batches(steps);
  std::vector<Net> models;
  for (int rank = 0; rank < kRanks; ++rank) models.push_back(Model());
  Trained trained{std::vector<std::vector<torch::Tensor>>(kRanks), std::vector<Figures>(kRanks),
                  std::vector<int64_t>(kRanks), std::vector<int64_t>(kRanks), std::vector<int>(kRanks)};
  const std::vector<Status> statuses = OnLoopbackRanks(kRanks, [&](Communicator& real) -> Status {
    testing::DelayedCommunicator comm(real, delay);
    const size_t rank = static_cast<size_t>(comm.rank());
    Net& model = models[rank];
    RunnerMetrics metrics(MetricLabels{"b", "t", "gloo", comm.rank(), kRanks});
    MlLog mllog("");
    RunClock clock(mllog, metrics, 0);
    PhaseTimer phases(metrics);
    ASSIGN_OR_RETURN(std::unique_ptr<GradientSync> sync,
                     MakeGradientSync(Options(strategy), comm, {model->parameters()}));
    torch::optim::SGD optimizer(sync->OptimizerGroups().front(),
                                torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(1e-3));
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
      return Status::Ok();
    };
    work.loss = [&](int64_t) { return torch::nn::functional::cross_entropy(model->forward(x), y) / 2.0; };
    if (clip > 0) work.before_update = [&] { return sync->ClipGradNorm(clip); };
    for (; step < steps; ++step) RETURN_IF_ERROR(driver.Step(step, work).status());
    for (const torch::Tensor& p : model->parameters()) {
      trained.params[rank].push_back(p.detach().clone());
      trained.whole_gradients[rank] += p.grad().defined() ? 1 : 0;
    }
    trained.optimizer_state[rank] = OptimizerStateBytes(optimizer);
    trained.gradient_bytes[rank] = sync->GradientBytes();
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

// Parameters from `first` on agree with flat's to float reassociation, and across ranks exactly.
void ExpectSameModel(const Trained& got_by_rank, const Trained& flat, size_t first = 0) {
  for (int rank = 0; rank < kRanks; ++rank) {
    const auto& got = got_by_rank.params[static_cast<size_t>(rank)];
    const auto& want = flat.params[static_cast<size_t>(rank)];
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = first; i < got.size(); ++i) {
      EXPECT_TRUE(torch::allclose(got[i], want[i], 1e-5, 1e-6))
          << "rank " << rank << ", parameter " << i << ": max difference " << (got[i] - want[i]).abs().max().item<float>();
      EXPECT_TRUE(torch::equal(got[i], got_by_rank.params[0][i])) << "ranks disagree on parameter " << i;
    }
  }
}

TEST(GradientSyncTest, OverlapTrainsTheModelFlatTrains) {
  const Trained flat = Train("flat", 5);
  const Trained overlap = Train("overlap", 5);
  const Net initial = Model();
  ExpectSameModel(overlap, flat);
  // Training moved the convolution; the unused layer, with no gradient, SGD left alone in both.
  EXPECT_FALSE(torch::allclose(overlap.params[0][2], initial->conv->weight));
  EXPECT_TRUE(torch::equal(overlap.params[0][0], initial->unused->weight));
}

// Each collective is delayed by kD on both ranks; the truth is the count of collectives times
// kD, each collective's own work (a few milliseconds over loopback) on top. Measured over 16 runs
// on a quiet AMD EPYC (Zen 4) 2-vCPU VM, in delays a step: overlap's collectives 2.02-2.14 and
// its wait 2.03-2.16 (this model's backward is too short to hide any), flat's 1.04-1.14. A
// bucket counted twice would read 3; a loaded machine reads up to 3.8 (hence the quiet phase).
TEST(GradientSyncMeasureTest, ACollectiveDelayIsCountedWholeAndTheStepWaitsOnlyForWhatItCouldNotHide) {
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
    EXPECT_LE(*o.collective_seconds, kSteps * 2.25 * kD);
    EXPECT_GE(o.phase_seconds.at("communication"), kSteps * kD);
    EXPECT_LE(o.phase_seconds.at("communication"), kSteps * 2.25 * kD);
    // Flat waits for its one all-reduce a step: waited and whole are the same seconds.
    ASSERT_TRUE(f.collective_seconds);
    EXPECT_GE(*f.collective_seconds, kSteps * kD);
    EXPECT_LE(*f.collective_seconds, kSteps * 1.25 * kD);
    EXPECT_DOUBLE_EQ(*f.collective_seconds, f.phase_seconds.at("communication"));
    std::printf("measured: overlap collectives %.4f, waited %.4f; flat %.4f (of %.4f injected a step)\n",
                *o.collective_seconds / (kSteps * kD), o.phase_seconds.at("communication") / (kSteps * kD),
                *f.collective_seconds / (kSteps * kD), kD);
  }
}

TEST(GradientSyncTest, ShardedTrainsTheModelFlatTrainsAtBothStages) {
  const Trained flat = Train("flat", 5);
  // The unused layer gets no gradient: flat leaves it alone, as torch's optimizers leave a
  // parameter without .grad; sharded steps its whole block, so momentum SGD with weight decay
  // moves it as a zero gradient would.
  torch::Tensor unused = Model()->unused->weight.detach().clone();
  unused.mutable_grad() = torch::zeros_like(unused);
  torch::optim::SGD decay_only({unused}, torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(1e-3));
  for (int step = 0; step < 5; ++step) decay_only.step();
  for (const char* strategy : {"sharded1", "sharded2"}) {
    SCOPED_TRACE(strategy);
    const Trained sharded = Train(strategy, 5);
    ExpectSameModel(sharded, flat, 2);
    for (int rank = 0; rank < kRanks; ++rank) {
      EXPECT_TRUE(torch::allclose(sharded.params[static_cast<size_t>(rank)][0], unused, 1e-6, 1e-7));
    }
  }
}

// Momentum is the optimizer's state: flat holds it for every parameter that got a gradient,
// sharded for its block of each unit only, the unit's length over k rounded up. Gradients:
// flat and overlap keep the model's .grad and a buffer as large; stage 1 the units' buffers
// (the .grad are views into them) and its blocks; stage 2 its blocks alone.
TEST(GradientSyncTest, WhatEachStrategyKeepsIsExactlyItsShareOfTheModel) {
  Net net = Model();
  int64_t parameters = 0;
  for (const torch::Tensor& p : net->parameters()) parameters += p.numel();
  const std::vector<size_t> bytes = ParameterBytes(net);
  int64_t blocks = 0;
  for (const std::vector<size_t>& unit : AssignBuckets(bytes, static_cast<size_t>(kBucketMib * 1024 * 1024))) {
    int64_t numel = 0;
    for (size_t index : unit) numel += static_cast<int64_t>(bytes[index] / sizeof(float));
    blocks += ShardLength(numel, kRanks);
  }
  ASSERT_EQ(parameters, 25 + 5 + 4 * 9 + 4 + 144 * 16 + 16 + 16 * 3 + 3);  // 2441
  // Units [out, fc] of 2371 and [conv, unused] of 70 elements: 1186 + 35 a rank.
  ASSERT_EQ(blocks, 1186 + 35);
  const int64_t used = parameters - 30;  // the unused layer never gets a gradient
  struct Kept {
    int64_t optimizer_state, gradients, whole_gradients;  // floats, floats, parameters with .grad
  };
  const std::map<std::string, Kept> expected = {{"flat", {used, used + parameters, 8 - 2}},
                                                {"overlap", {used, used + parameters, 8 - 2}},
                                                {"sharded1", {blocks, kRanks * blocks + blocks, 8}},
                                                {"sharded2", {blocks, blocks, 0}}};
  for (const auto& [strategy, kept] : expected) {
    const Trained trained = Train(strategy, 2);
    for (size_t rank = 0; rank < kRanks; ++rank) {
      EXPECT_EQ(trained.optimizer_state[rank], kept.optimizer_state * 4) << strategy;
      EXPECT_EQ(trained.gradient_bytes[rank], kept.gradients * 4) << strategy;
      EXPECT_EQ(trained.whole_gradients[rank], kept.whole_gradients) << strategy;
    }
  }
}

TEST(GradientSyncTest, ShardedClipsByTheNormOverAllRanksBlocks) {
  constexpr double kClip = 0.05;
  const Trained unclipped = Train("flat", 3);
  const Trained flat = Train("flat", 3, {}, kClip);
  ASSERT_FALSE(torch::allclose(flat.params[0][2], unclipped.params[0][2], 1e-4, 1e-5)) << "the clip must bite";
  for (const char* strategy : {"overlap", "sharded1", "sharded2"}) {
    SCOPED_TRACE(strategy);
    ExpectSameModel(Train(strategy, 3, {}, kClip), flat, 2);
  }
}

// Stage 2 reduce-scatters both units after each of the two micro-batches' backward, and
// every stage all-gathers both units after the update: each collective delayed on this rank.
// Measured over 16 runs on a quiet AMD EPYC (Zen 4) VM, in delays a step: stage 1's collectives
// 4.04-4.25, stage 2's 6.13-6.31 and its wait 6.13-6.32 (nothing hidden on this model).
TEST(GradientSyncMeasureTest, ShardedCountsEveryReduceScatterAndAllGather) {
  constexpr auto kDelay = std::chrono::milliseconds(30);
  constexpr int kSteps = 2;
  constexpr double kD = 0.030;
  const Trained stage1 = Train("sharded1", kSteps, kDelay);
  const Trained stage2 = Train("sharded2", kSteps, kDelay);
  for (size_t rank = 0; rank < kRanks; ++rank) {
    const Figures& one = stage1.figures[rank];
    const Figures& two = stage2.figures[rank];
    ASSERT_TRUE(one.collective_seconds && two.collective_seconds);
    EXPECT_GE(*one.collective_seconds, kSteps * 4 * kD);
    EXPECT_LE(*one.collective_seconds, kSteps * 4.4 * kD);
    EXPECT_DOUBLE_EQ(*one.collective_seconds, one.phase_seconds.at("communication"));
    EXPECT_GE(*two.collective_seconds, kSteps * 6 * kD);
    EXPECT_LE(*two.collective_seconds, kSteps * 6.6 * kD);
    EXPECT_GE(two.phase_seconds.at("communication"), kSteps * 2 * kD);  // at least the all-gathers
    EXPECT_LE(two.phase_seconds.at("communication"), kSteps * 6.6 * kD);
    std::printf("measured: stage 1 collectives %.4f, stage 2 collectives %.4f, waited %.4f (delays a step)\n",
                *one.collective_seconds / (kSteps * kD), *two.collective_seconds / (kSteps * kD),
                two.phase_seconds.at("communication") / (kSteps * kD));
  }
}

// ZeRO-3 needs a model that gathers block by block: the tiny GPT with AdamW over the language
// model's two groups (decayed or not), clipping, two micro-batches a step, every rank its own
// tokens drawn up front.
struct GptTrained {
  std::vector<std::vector<torch::Tensor>> params;  // by rank, whole again after training
  std::vector<int64_t> parameter_bytes;            // by rank, kept between steps
  std::vector<Figures> figures;                    // by rank, the phases
};

// `delay`: every collective takes that much longer.
GptTrained TrainGpt(const std::string& strategy, int steps, std::chrono::milliseconds delay = {}) {
  const GptConfig& config = FindGptPreset("tiny")->config;
  torch::manual_seed(11);
  std::vector<torch::Tensor> tokens;
  for (int i = 0; i < kRanks * steps * 2; ++i) tokens.push_back(torch::randint(config.vocab_size, {2, 17}, torch::kLong));
  std::vector<Gpt> models;
  for (int rank = 0; rank < kRanks; ++rank) {
    torch::manual_seed(3);
    models.emplace_back(config);
  }
  GptTrained trained{std::vector<std::vector<torch::Tensor>>(kRanks), std::vector<int64_t>(kRanks),
                     std::vector<Figures>(kRanks)};
  const std::vector<Status> statuses = OnLoopbackRanks(kRanks, [&](Communicator& gloo) -> Status {
    testing::DelayedCommunicator comm(gloo, delay);
    const size_t rank = static_cast<size_t>(comm.rank());
    Gpt& model = models[rank];
    ParameterGroups groups(2);
    for (const torch::Tensor& p : model->parameters()) groups[p.dim() >= 2 ? 0 : 1].push_back(p);
    ASSIGN_OR_RETURN(std::unique_ptr<GradientSync> sync,
                     MakeGradientSync(Options(strategy), comm, groups, model->ParameterBlocks()));
    model->SetBlockHooks(sync->block_hooks());
    const ParameterGroups shards = sync->OptimizerGroups();
    torch::optim::AdamW optimizer({torch::optim::OptimizerParamGroup(shards[0], std::make_unique<torch::optim::AdamWOptions>(1e-2)),
                                   torch::optim::OptimizerParamGroup(shards[1], std::make_unique<torch::optim::AdamWOptions>(1e-2))},
                                  torch::optim::AdamWOptions(1e-2).weight_decay(0.1));
    static_cast<torch::optim::AdamWOptions&>(optimizer.param_groups()[1].options()).weight_decay(0.0);
    RunnerMetrics metrics(MetricLabels{"b", "t", "gloo", comm.rank(), kRanks});
    MlLog mllog("");
    RunClock clock(mllog, metrics, 0);
    PhaseTimer phases(metrics);
    StepDriver driver(comm, clock, phases, *sync, optimizer);
    int step = 0;
    torch::Tensor batch;
    StepWork work;
    work.micro_batches = 2;
    work.samples = 4;
    work.load = [&](int64_t micro) {
      batch = tokens[rank * static_cast<size_t>(steps) * 2 + step * 2 + micro];
      return Status::Ok();
    };
    work.loss = [&](int64_t) {
      const torch::Tensor logits = model->forward(batch.slice(1, 0, 16));
      return torch::nn::functional::cross_entropy(logits.reshape({-1, config.vocab_size}),
                                                  batch.slice(1, 1, 17).reshape({-1})) / 2.0;
    };
    work.before_update = [&] { return sync->ClipGradNorm(0.5); };
    for (; step < steps; ++step) RETURN_IF_ERROR(driver.Step(step, work).status());
    phases.Report(&trained.figures[rank]);
    trained.parameter_bytes[rank] = sync->ParameterBytes();
    RETURN_IF_ERROR(sync->GatherParameters());
    for (const torch::Tensor& p : model->parameters()) trained.params[rank].push_back(p.detach().clone());
    return Status::Ok();
  });
  for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.ToString();
  return trained;
}

TEST(GradientSyncTest, ZeroThreeTrainsTheGptFlatTrainsAndKeepsHalfItsParameters) {
  const GptTrained flat = TrainGpt("flat", 3);
  const int64_t n = GptParameterCount(FindGptPreset("tiny")->config);
  ASSERT_EQ(flat.params[0].size(), 2u + 2 * 12 + 2);
  for (const char* strategy : {"sharded2", "sharded3"}) {
    SCOPED_TRACE(strategy);
    const GptTrained sharded = TrainGpt(strategy, 3);
    for (size_t rank = 0; rank < kRanks; ++rank) {
      ASSERT_EQ(sharded.params[rank].size(), flat.params[rank].size());
      for (size_t i = 0; i < flat.params[rank].size(); ++i) {
        const torch::Tensor& got = sharded.params[rank][i];
        const torch::Tensor& want = flat.params[rank][i];
        ASSERT_EQ(got.sizes(), want.sizes()) << "parameter " << i;
        // Adam divides by the root of the second moment, which turns last-bit differences in
        // a small gradient (the clip's norm is summed in another order) into 1e-5 of a step.
        EXPECT_TRUE(torch::allclose(got, want, 1e-4, 3e-5))
            << "rank " << rank << ", parameter " << i << ": max difference " << (got - want).abs().max().item<float>();
        EXPECT_TRUE(torch::equal(got, sharded.params[0][i])) << "ranks disagree on parameter " << i;
      }
    }
    // Between steps stage 3 keeps its blocks only: half the model, and at most one padding
    // element a unit (a unit per block and group: 2 + 2 x 2 units).
    if (std::string(strategy) == "sharded3") {
      EXPECT_GE(sharded.parameter_bytes[0], 4 * n / 2);
      EXPECT_LE(sharded.parameter_bytes[0], 4 * (n / 2 + 6));
    } else {
      EXPECT_EQ(sharded.parameter_bytes[0], 4 * n);
    }
  }
  EXPECT_EQ(flat.params[0].size(), flat.params[1].size());
}

// Stage 3 waits for its gathers inside forward and backward. Those waits are communication:
// the tiny GPT's 3 blocks (the ends and 2 layers) of 2 units each (decayed or not) are gathered
// before each forward and again in each backward, one delayed all-gather a unit, 2 micro-batches
// a step: at least 24 delays a step waited for. Every collective, the reduce-scatter of each
// unit after each backward too, is in the whole collective time: at least 36.
// Measured over 16 runs on a quiet AMD EPYC (Zen 4) VM, in delays a step: waited 37.5-38.6,
// collectives 37.5-38.5 (this tiny model hides none of the 36).
TEST(GradientSyncMeasureTest, ZeroThreeWaitsForItsGathersAsCommunication) {
  constexpr auto kDelay = std::chrono::milliseconds(20);
  constexpr int kSteps = 2;
  const GptTrained trained = TrainGpt("sharded3", kSteps, kDelay);
  const double delay = std::chrono::duration<double>(kDelay).count();
  for (const Figures& f : trained.figures) {
    ASSERT_TRUE(f.communication_seconds && f.collective_seconds);
    EXPECT_GE(*f.communication_seconds, kSteps * 24 * delay);
    EXPECT_LE(*f.communication_seconds, kSteps * 40 * delay);
    EXPECT_GE(*f.collective_seconds, kSteps * 36 * delay);
    EXPECT_LE(*f.collective_seconds, kSteps * 40 * delay);
    // Forward and backward keep their compute alone: on this tiny model, far less than the waits.
    EXPECT_LT(f.phase_seconds.at("forward") + f.phase_seconds.at("backward"), *f.communication_seconds);
    std::printf("measured: ZeRO-3 waited %.4f, collectives %.4f (delays a step)\n",
                *f.communication_seconds / (kSteps * delay), *f.collective_seconds / (kSteps * delay));
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
    ASSIGN_OR_RETURN(std::unique_ptr<GradientSync> sync,
                     MakeGradientSync(Options("overlap"), comm, {model->parameters()}));
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

// Every strategy's buffers live where the parameters do. On a GPU (found by the GPU
// run, bench/gpu/run.sh's part zero) the sharded strategy had made them on the CPU, taking the parameters with
// them. Parameters on torch's meta device stand in for a GPU's here: any buffer made on the
// CPU would fail to take their values, or move them off it.
TEST(GradientSyncTest, EveryStrategyKeepsTheParametersOnTheirDevice) {
  for (const char* strategy : {"sharded1", "sharded2", "flat", "overlap"}) {
    const std::vector<Status> statuses = OnLoopbackRanks(1, [&](Communicator& comm) -> Status {
      const auto meta = torch::TensorOptions().device(torch::kMeta).requires_grad(true);
      const std::vector<torch::Tensor> params = {torch::empty({4, 1, 3, 3}, meta), torch::empty({4}, meta),
                                                 torch::empty({10, 16}, meta)};
      ASSIGN_OR_RETURN(std::unique_ptr<GradientSync> sync, MakeGradientSync(Options(strategy), comm, {params}));
      for (const torch::Tensor& p : params) {
        if (!p.is_meta()) return Status::Internal(std::string(strategy) + ": a parameter left the meta device");
      }
      return Status::Ok();
    });
    EXPECT_TRUE(statuses[0].ok()) << strategy << ": " << statuses[0].ToString();
  }
}

TEST(GradientSyncTest, AnUnknownStrategyNamesTheField) {
  const std::vector<Status> statuses = OnLoopbackRanks(1, [&](Communicator& comm) -> Status {
    Net net = Model();
    return MakeGradientSync(Options("ring"), comm, {net->parameters()}).status();
  });
  EXPECT_EQ(statuses[0].message(), "spec.hyperparameters.gradientSync: \"ring\" is not one of flat, overlap, sharded");
  for (int zero_stage : {4, 3}) {
    const std::vector<Status> stage = OnLoopbackRanks(1, [&](Communicator& comm) -> Status {
      Net net = Model();
      GradientSyncOptions options = Options("sharded1");
      options.zero_stage = zero_stage;
      return MakeGradientSync(options, comm, {net->parameters()}).status();  // a model without blocks
    });
    EXPECT_EQ(stage[0].message(),
              zero_stage == 4 ? "spec.hyperparameters.zeroStage: 4 is not 1 (optimizer state sharded), 2 (and "
                                "gradients) or 3 (and parameters)"
                              : "spec.hyperparameters.zeroStage: 3 gathers parameters block by block, which only task "
                                "gpt's model does; use 1 or 2");
  }
}

TEST(GradientSyncTest, OptionsComeFromTheHyperparameters) {
  const nlohmann::json hyperparameters = {{"gradientSync", "sharded"}, {"bucketMiB", 2.5}, {"zeroStage", 2}};
  RecipeReader read(hyperparameters);  // reads it in place
  const GradientSyncOptions options = ReadGradientSyncOptions(read);
  EXPECT_TRUE(read.status().ok());
  EXPECT_EQ(options.strategy, "sharded");
  EXPECT_EQ(options.bucket_mib, 2.5);
  EXPECT_EQ(options.zero_stage, 2);
}

}  // namespace
}  // namespace ergobench
