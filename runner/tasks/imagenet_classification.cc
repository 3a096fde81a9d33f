// Task resnet50: ResNet-50 v1.5 (runner/models/resnet50.h) on ImageNet-shaped data, trained by
// the SGD trainer with MLPerf ResNet's recipe (catalog: polynomial schedule, label smoothing).
//
// Data, by spec.dataset.source:
//   synthetic: as CARAML measures images/s, a pool of random normalised images cycled over an
//     epoch of ImageNet's 1,281,167 (trainSamples cuts it) and a 50,000-image validation set;
//   path: an ImageNet-layout folder, train/<class>/*.JPEG and val/<class>/*.JPEG, decoded on
//     dataThreads threads ahead of training (batch_prefetcher.h). Training takes torchvision's
//     random resized crop and flip of the full-size image; evaluation the centre crop of an
//     image decoded at no less than imageSize / 0.875 on its shorter side.

#include <cstring>

#include <ATen/Parallel.h>

#include "runner/data/batch_prefetcher.h"
#include "runner/data/dataset_fetch.h"
#include "runner/data/image_folder.h"
#include "runner/data/imagenet_samples.h"
#include "runner/models/resnet50.h"
#include "runner/tasks/image_classification.h"
#include "runner/train/recipe_reader.h"
#include "runner/train/sync_sgd_trainer.h"

namespace ergobench {
namespace {

constexpr int64_t kImageNetTrain = 1281167;
constexpr int64_t kImageNetVal = 50000;
constexpr int64_t kSyntheticPool = 64;
constexpr int kPrefetchDepth = 3;

struct ImageNetOptions {
  int64_t classes = 0;
  int side = 0;
  int64_t eval_samples = 0;  // 0: all
  int data_threads = 0;
  bool augment = false;
  double label_smoothing = 0;
  int64_t batch = 0;
};

StatusOr<ImageNetOptions> ReadImageNetOptions(const BenchmarkSpec& spec) {
  RecipeReader read(spec.hyperparameters);
  ImageNetOptions o;
  o.classes = read.Int("classes");
  o.side = static_cast<int>(read.Int("imageSize"));
  o.eval_samples = read.Int("evalSamples");
  o.data_threads = static_cast<int>(read.Int("dataThreads"));
  o.augment = read.Bool("augment");
  o.label_smoothing = read.Number("labelSmoothing");
  o.batch = read.Int("batchSize");
  RETURN_IF_ERROR(read.status());
  return o;
}

class ImageNetProblem : public TrainingProblem {
 public:
  ImageNetProblem(ImageNetOptions options, DatasetSpec dataset, uint64_t seed)
      : options_(options), dataset_(std::move(dataset)), seed_(seed) {}

  torch::nn::AnyModule BuildModel() override { return torch::nn::AnyModule(ResNet50(options_.classes)); }

  Status Load() override {
    if (dataset_.source == "synthetic") {
      train_count_ = kImageNetTrain;
      test_count_ = kImageNetVal;
      // Kept out of torch's allocator: data, not the model's tensors (memory_accounting.h).
      pool_.resize(static_cast<size_t>(kSyntheticPool * SampleFloats()));
      SplitMix64 rng(seed_);
      for (float& v : pool_) v = static_cast<float>(rng.Next() >> 40) * 0x1.0p-24f * 4.0f - 2.0f;
    } else {
      ASSIGN_OR_RETURN(const std::string dir, ResolveDatasetDir(dataset_, "train"));
      const std::string field = "spec.hyperparameters.classes";
      ASSIGN_OR_RETURN(train_, ListImageFolder(dir + "/train", options_.classes, field));
      ASSIGN_OR_RETURN(val_, ListImageFolder(dir + "/val", options_.classes, field));
      if (val_.classes != train_.classes) {
        return Status::InvalidArgument("spec.dataset.path: " + dir + "/val holds other class folders than " + dir +
                                       "/train; labels would disagree");
      }
      train_count_ = static_cast<int64_t>(train_.paths.size());
      test_count_ = static_cast<int64_t>(val_.paths.size());
    }
    if (options_.eval_samples > 0) test_count_ = std::min(test_count_, options_.eval_samples);
    return Status::Ok();
  }

  int64_t train_count() const override { return train_count_; }
  int64_t test_count() const override { return test_count_; }
  int64_t test_batch() const override { return options_.batch; }

  void WillTrain(const std::vector<int64_t>& shard, int64_t batch, uint64_t seed) override {
    if (synthetic()) return;
    if (train_batches_) earlier_epochs_work_ += train_batches_->Work();
    train_batches_.reset();  // its threads stop before the new ones start
    train_batches_ = Prefetch(shard, batch, [this, seed](int64_t sample, int64_t position, float* out, int64_t* label) {
      return FillTrainSample(sample, SplitMix64(seed ^ (static_cast<uint64_t>(position) * 0x9E3779B97F4A7C15u)), out,
                             label);
    });
  }

  void WillTest(int64_t begin, int64_t end, int64_t batch) override {
    if (synthetic()) return;
    std::vector<int64_t> order(static_cast<size_t>(end - begin));
    std::iota(order.begin(), order.end(), begin);
    test_batches_.reset();
    test_batches_ = Prefetch(order, batch, [this](int64_t sample, int64_t, float* out, int64_t* label) {
      return FillTestSample(sample, out, label);
    });
  }

  std::optional<LoadingWork> TrainingDataWork() override {
    if (!train_batches_) return std::nullopt;
    LoadingWork all = earlier_epochs_work_;
    return all += train_batches_->Work();
  }

  Status TrainBatch(const int64_t* indices, int64_t n, SplitMix64&, torch::Tensor* inputs,
                    torch::Tensor* targets) override {
    return synthetic() ? SyntheticBatch(indices, n, inputs, targets) : Take(train_batches_.get(), n, inputs, targets);
  }

  Status TestBatch(int64_t begin, int64_t n, torch::Tensor* inputs, torch::Tensor* targets) override {
    if (!synthetic()) return Take(test_batches_.get(), n, inputs, targets);
    std::vector<int64_t> indices(static_cast<size_t>(n));
    std::iota(indices.begin(), indices.end(), kImageNetTrain + begin);  // not the training images
    return SyntheticBatch(indices.data(), n, inputs, targets);
  }

  torch::Tensor LossSum(const torch::Tensor& outputs, const torch::Tensor& targets) override {
    namespace F = torch::nn::functional;
    return F::cross_entropy(
        outputs, targets,
        F::CrossEntropyFuncOptions().reduction(torch::kSum).label_smoothing(options_.label_smoothing));
  }

  torch::Tensor MetricSum(const torch::Tensor& outputs, const torch::Tensor& targets) override {
    return outputs.argmax(1).eq(targets).sum();
  }

 private:
  bool synthetic() const { return dataset_.source == "synthetic"; }
  int64_t SampleFloats() const { return 3 * int64_t{options_.side} * options_.side; }

  std::unique_ptr<BatchPrefetcher> Prefetch(std::vector<int64_t> order, int64_t batch,
                                            BatchPrefetcher::FillSample fill) const {
    return std::make_unique<BatchPrefetcher>(std::move(order), batch, SampleFloats(), options_.data_threads,
                                             kPrefetchDepth, std::move(fill));
  }

  Status FillTrainSample(int64_t sample, SplitMix64 rng, float* out, int64_t* label) const {
    *label = train_.labels[static_cast<size_t>(sample)];
    return FillTrainingSample(train_.paths[static_cast<size_t>(sample)], options_.side, options_.augment, rng, out);
  }

  Status FillTestSample(int64_t sample, float* out, int64_t* label) const {
    *label = val_.labels[static_cast<size_t>(sample)];
    return FillEvaluationSample(val_.paths[static_cast<size_t>(sample)], options_.side, out);
  }

  Status SyntheticBatch(const int64_t* indices, int64_t n, torch::Tensor* inputs, torch::Tensor* targets) const {
    Resize(n, inputs, targets);
    const size_t bytes = static_cast<size_t>(SampleFloats()) * sizeof(float);
    float* images = inputs->data_ptr<float>();
    int64_t* labels = targets->data_ptr<int64_t>();
    // On torch's threads, as PyTorch's own indexing of a pool would: a batch of 256 is 154 MB,
    // whose copy on one core took a quarter of an H200's step (bench/RESULTS.md, GPU).
    at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const uint64_t index = static_cast<uint64_t>(indices[i]);
        std::memcpy(images + i * SampleFloats(), pool_.data() + static_cast<int64_t>(index % kSyntheticPool) * SampleFloats(),
                    bytes);
        labels[i] = static_cast<int64_t>(SplitMix64(seed_ ^ index).Below(static_cast<uint64_t>(options_.classes)));
      }
    });
    return Status::Ok();
  }

  Status Take(BatchPrefetcher* batches, int64_t n, torch::Tensor* inputs, torch::Tensor* targets) const {
    if (batches == nullptr) return Status::Internal("resnet50: a batch was asked for before WillTrain/WillTest");
    ASSIGN_OR_RETURN(const BatchPrefetcher::Batch batch, batches->Next());
    if (batch.size != n) {
      return Status::Internal("resnet50: the prefetched batch holds " + std::to_string(batch.size) + " images, not " +
                              std::to_string(n));
    }
    Resize(n, inputs, targets);
    std::memcpy(inputs->data_ptr<float>(), batch.inputs, static_cast<size_t>(n * SampleFloats()) * sizeof(float));
    std::memcpy(targets->data_ptr<int64_t>(), batch.labels, static_cast<size_t>(n) * sizeof(int64_t));
    return Status::Ok();
  }

  void Resize(int64_t n, torch::Tensor* inputs, torch::Tensor* targets) const {
    if (!inputs->defined() || inputs->size(0) != n) {
      *inputs = torch::empty({n, 3, options_.side, options_.side});
      *targets = torch::empty({n}, torch::kLong);
    }
  }

  ImageNetOptions options_;
  DatasetSpec dataset_;
  uint64_t seed_;
  int64_t train_count_ = 0;
  int64_t test_count_ = 0;
  std::vector<float> pool_;  // synthetic: kSyntheticPool normalised images, uniform in [-2, 2)
  ImageFolder train_;
  ImageFolder val_;
  std::unique_ptr<BatchPrefetcher> train_batches_;
  LoadingWork earlier_epochs_work_;  // of the prefetchers before train_batches_
  std::unique_ptr<BatchPrefetcher> test_batches_;
};

class ImageNetClassificationTask : public Task {
 public:
  StatusOr<TaskOutcome> Run(TaskContext& context) override {
    const BenchmarkSpec& spec = context.benchmark.spec;
    ASSIGN_OR_RETURN(const SgdRecipe recipe, ReadSgdRecipe(spec));
    ASSIGN_OR_RETURN(const ImageNetOptions options, ReadImageNetOptions(spec));
    ImageNetProblem problem(options, spec.dataset, static_cast<uint64_t>(recipe.seed));
    return TrainSyncSgd(context, problem, recipe);
  }
};

}  // namespace

std::unique_ptr<Task> NewImageNetClassificationTask() { return std::make_unique<ImageNetClassificationTask>(); }

}  // namespace ergobench
