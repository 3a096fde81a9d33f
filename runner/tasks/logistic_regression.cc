#include "runner/tasks/logistic_regression.h"

#include "runner/data/dataset_fetch.h"
#include "runner/data/libsvm_reader.h"
#include "runner/train/recipe_reader.h"
#include "runner/train/sync_sgd_trainer.h"

namespace ergobench {
namespace {

// Two Gaussian classes around ±direction, for throughput-only runs.
SparseDataset SyntheticLinear(int64_t count, int64_t features, uint64_t seed) {
  SparseDataset d;
  d.count = count;
  d.features = features;
  SplitMix64 rng(seed);
  auto uniform = [&rng] { return static_cast<float>(rng.Next() >> 11) * 0x1.0p-53f; };
  for (int64_t i = 0; i < count; ++i) {
    const float label = static_cast<float>(rng.Below(2));
    d.labels.push_back(label);
    for (int64_t j = 0; j < features; ++j) {
      d.indices.push_back(static_cast<int32_t>(j));
      d.values.push_back((label > 0 ? 0.1f : -0.1f) + (uniform() - 0.5f));
    }
    d.row_offsets.push_back(static_cast<int64_t>(d.indices.size()));
  }
  return d;
}

class LibsvmProblem : public TrainingProblem {
 public:
  LibsvmProblem(DatasetSpec dataset, std::string train_file, std::string test_file, int64_t features, uint64_t seed)
      : dataset_(std::move(dataset)),
        train_file_(std::move(train_file)),
        test_file_(std::move(test_file)),
        features_(features),
        seed_(seed) {}

  Status Load() override {
    if (dataset_.source == "synthetic") {
      train_ = SyntheticLinear(40000, features_, seed_);
      test_ = SyntheticLinear(10000, features_, seed_ + 1);
      return Status::Ok();
    }
    ASSIGN_OR_RETURN(const std::string dir, ResolveDatasetDir(dataset_, train_file_));
    ASSIGN_OR_RETURN(train_, ReadLibsvm(dir + "/" + train_file_, features_));
    ASSIGN_OR_RETURN(test_, ReadLibsvm(dir + "/" + test_file_, features_));
    return Status::Ok();
  }

  torch::nn::AnyModule BuildModel() override { return torch::nn::AnyModule(torch::nn::Linear(features_, 1)); }
  int64_t train_count() const override { return train_.count; }
  int64_t test_count() const override { return test_.count; }

  Status TrainBatch(const int64_t* indices, int64_t n, SplitMix64&, torch::Tensor* inputs,
                    torch::Tensor* targets) override {
    Densify(train_, indices, n, inputs, targets);
    return Status::Ok();
  }

  Status TestBatch(int64_t begin, int64_t n, torch::Tensor* inputs, torch::Tensor* targets) override {
    std::vector<int64_t> indices(static_cast<size_t>(n));
    std::iota(indices.begin(), indices.end(), begin);
    Densify(test_, indices.data(), n, inputs, targets);
    return Status::Ok();
  }

  torch::Tensor LossSum(const torch::Tensor& outputs, const torch::Tensor& targets) override {
    namespace F = torch::nn::functional;
    return F::binary_cross_entropy_with_logits(
        outputs.squeeze(1), targets, F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kSum));
  }

  torch::Tensor MetricSum(const torch::Tensor& outputs, const torch::Tensor& targets) override {
    return outputs.squeeze(1).gt(0).eq(targets.gt(0.5)).sum();
  }

 private:
  void Densify(const SparseDataset& data, const int64_t* indices, int64_t n, torch::Tensor* inputs,
               torch::Tensor* targets) const {
    if (!inputs->defined() || inputs->size(0) != n) {
      *inputs = torch::empty({n, features_});
      *targets = torch::empty({n});
    }
    inputs->zero_();
    float* x = inputs->data_ptr<float>();
    float* y = targets->data_ptr<float>();
    for (int64_t b = 0; b < n; ++b) {
      const int64_t row = indices[b];
      y[b] = data.labels[static_cast<size_t>(row)];
      for (int64_t k = data.row_offsets[row]; k < data.row_offsets[row + 1]; ++k) {
        x[b * features_ + data.indices[k]] = data.values[k];
      }
    }
  }

  DatasetSpec dataset_;
  std::string train_file_;
  std::string test_file_;
  int64_t features_;
  uint64_t seed_;
  SparseDataset train_;
  SparseDataset test_;
};

class LogisticRegressionTask : public Task {
 public:
  StatusOr<TaskOutcome> Run(TaskContext& context) override {
    const BenchmarkSpec& spec = context.benchmark.spec;
    ASSIGN_OR_RETURN(const SgdRecipe recipe, ReadSgdRecipe(spec));
    RecipeReader read(spec.hyperparameters);
    const std::string train_file = read.String("trainFile");
    const std::string test_file = read.String("testFile");
    const int64_t features = read.Int("features");
    RETURN_IF_ERROR(read.status());
    LibsvmProblem problem(spec.dataset, train_file, test_file, features, static_cast<uint64_t>(recipe.seed));
    return TrainSyncSgd(context, problem, recipe);
  }
};

}  // namespace

std::unique_ptr<Task> NewLogisticRegressionTask() { return std::make_unique<LogisticRegressionTask>(); }

}  // namespace ergobench
