#include "runner/tasks/cosmoflow.h"

#include <ATen/Parallel.h>

#include "runner/data/cosmo_universes.h"
#include "runner/metrics/mllog.h"
#include "runner/models/cosmoflow.h"
#include "runner/train/recipe_reader.h"
#include "runner/train/sync_sgd_trainer.h"

namespace ergobench {
namespace {

constexpr int64_t kDefaultTrainUniverses = 1024;
// The universes a rank generates and keeps, test set included: 4 GiB is 256 of the reference's
// 4 x 128^3 (16 MiB each).
constexpr int64_t kUniverseBudgetBytes = int64_t{4} << 30;
// Validation universes are indexed apart from the training ones: the same source, other universes.
constexpr int64_t kTestIndexBase = int64_t{1} << 40;

class UniverseProblem : public TrainingProblem {
 public:
  UniverseProblem(CosmoFlowConfig config, int64_t train, int64_t test, uint64_t universe_seed)
      : config_(std::move(config)),
        source_(config_.side, config_.channels, universe_seed),
        train_count_(train),
        test_count_(test) {}

  EvalMetric metric() const override { return {"eval_error", "mae", false}; }
  torch::nn::AnyModule BuildModel() override { return torch::nn::AnyModule(CosmoFlow(config_)); }
  int64_t train_count() const override { return train_count_; }
  int64_t test_count() const override { return test_count_; }
  // Test volumes a forward takes: the reference's 4 x 128^3 ones 2 at a time, the tiny preset's 128.
  int64_t test_batch() const override { return std::max<int64_t>(1, 512 / std::max<int64_t>(1, VolumeFloats() >> 15)); }

  Status Load() override {
    const int64_t bytes = (train_count_ + test_count_) * VolumeFloats() * static_cast<int64_t>(sizeof(int16_t));
    if (bytes > kUniverseBudgetBytes) {
      return Status::InvalidArgument("spec.hyperparameters.trainSamples: " + std::to_string(train_count_) + " and " +
                                     std::to_string(test_count_) + " universes of " + std::to_string(config_.side) +
                                     "^3 are " + std::to_string(bytes >> 20) + " MiB a rank, over the " +
                                     std::to_string(kUniverseBudgetBytes >> 20) + " MiB of generated data it keeps");
    }
    train_ = Generate(0, train_count_);
    test_ = Generate(kTestIndexBase, test_count_);
    return Status::Ok();
  }

  Status TrainBatch(const int64_t* indices, int64_t n, SplitMix64&, torch::Tensor* inputs, torch::Tensor* targets) override {
    Fill(train_, indices, n, inputs, targets);
    return Status::Ok();
  }

  Status TestBatch(int64_t begin, int64_t n, torch::Tensor* inputs, torch::Tensor* targets) override {
    std::vector<int64_t> indices(static_cast<size_t>(n));
    std::iota(indices.begin(), indices.end(), begin);
    Fill(test_, indices.data(), n, inputs, targets);
    return Status::Ok();
  }

  // MSE over the four parameters, summed over the samples; the metric their mean absolute error.
  torch::Tensor LossSum(const torch::Tensor& outputs, const torch::Tensor& targets) override {
    return (outputs - targets).pow(2).mean(1).sum();
  }
  torch::Tensor MetricSum(const torch::Tensor& outputs, const torch::Tensor& targets) override {
    return (outputs - targets).abs().mean(1).sum();
  }

 private:
  struct Universes {
    torch::Tensor counts;      // [n, channels, side, side, side] int16
    torch::Tensor parameters;  // [n, 4] float, scaled to [-1, 1]
  };

  int64_t VolumeFloats() const { return config_.channels * config_.side * config_.side * config_.side; }

  Universes Generate(int64_t first, int64_t n) const {
    const int64_t s = config_.side;
    Universes u{torch::empty({n, config_.channels, s, s, s}, torch::kInt16), torch::empty({n, kUniverseParameters})};
    // A universe a thread at a time: each is its own generator's, and one small FFT does not
    // spread over threads well.
    at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        source_.Counts(first + i, u.counts[i].data_ptr<int16_t>());
        const ScaledParameters p = source_.Parameters(first + i);
        std::copy(p.begin(), p.end(), u.parameters[i].data_ptr<float>());
      }
    });
    return u;
  }

  // The reference's preprocessing: log1p of the counts.
  static void Fill(const Universes& from, const int64_t* indices, int64_t n, torch::Tensor* inputs, torch::Tensor* targets) {
    const torch::Tensor picked = torch::from_blob(const_cast<int64_t*>(indices), {n}, torch::kLong);
    *inputs = torch::log1p(from.counts.index_select(0, picked).to(torch::kFloat));
    *targets = from.parameters.index_select(0, picked);
  }

  CosmoFlowConfig config_;
  UniverseSource source_;
  int64_t train_count_;
  int64_t test_count_;
  Universes train_;
  Universes test_;
};

class CosmoFlowTask : public Task {
 public:
  StatusOr<TaskOutcome> Run(TaskContext& context) override {
    const BenchmarkSpec& spec = context.benchmark.spec;
    ASSIGN_OR_RETURN(SgdRecipe recipe, ReadSgdRecipe(spec));
    RecipeReader read(spec.hyperparameters);
    const std::string model = read.String("model");
    const double dropout = read.Number("dropout");
    const int64_t eval_samples = read.Int("evalSamples");
    const int64_t universe_seed = read.Int("universeSeed");
    RETURN_IF_ERROR(read.status());
    ASSIGN_OR_RETURN(CosmoFlowConfig config, CosmoFlowPreset(model));
    config.dropout = dropout;
    // The universes are learnable, unlike other tasks' synthetic data: the goal stands.
    if (spec.goal) recipe.goal = spec.goal->target;
    const int64_t train = recipe.train_samples > 0 ? recipe.train_samples : kDefaultTrainUniverses;
    context.mllog.Point("dropout", dropout);
    UniverseProblem problem(config, train, eval_samples, static_cast<uint64_t>(universe_seed));
    return TrainSyncSgd(context, problem, recipe);
  }
};

}  // namespace

std::unique_ptr<Task> NewCosmoFlowTask() { return std::make_unique<CosmoFlowTask>(); }

}  // namespace ergobench
