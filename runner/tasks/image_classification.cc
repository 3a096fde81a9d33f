#include "runner/tasks/image_classification.h"

#include <array>
#include <filesystem>

#include "runner/data/cifar10_reader.h"
#include "runner/data/dataset_fetch.h"
#include "runner/data/idx_reader.h"
#include "runner/models/models.h"
#include "runner/train/recipe_reader.h"
#include "runner/train/sync_sgd_trainer.h"

namespace ergobench {

// IDX files as Debian ships them (gzip), or uncompressed beside them.
static std::string IdxPath(const std::string& dir, const std::string& name) {
  const std::string gz = dir + "/" + name + ".gz";
  return std::filesystem::exists(gz) ? gz : dir + "/" + name;
}

ImageDataset SyntheticImages(int64_t count, int64_t channels, int64_t side, int64_t classes, uint64_t seed) {
  ImageDataset d;
  d.count = count;
  d.channels = channels;
  d.height = side;
  d.width = side;
  d.classes = classes;
  SplitMix64 rng(seed);
  d.pixels.resize(static_cast<size_t>(count * d.image_size()));
  for (uint8_t& p : d.pixels) p = static_cast<uint8_t>(rng.Next());
  d.labels.resize(static_cast<size_t>(count));
  for (uint8_t& l : d.labels) l = static_cast<uint8_t>(rng.Below(static_cast<uint64_t>(classes)));
  return d;
}

void FillImageBatch(const ImageDataset& data, const Normalization& norm, const int64_t* indices, int64_t n,
                    SplitMix64* augment, float* out_images, int64_t* out_labels) {
  const int64_t c = data.channels, h = data.height, w = data.width;
  for (int64_t b = 0; b < n; ++b) {
    const uint8_t* image = data.image(indices[b]);
    out_labels[b] = data.labels[static_cast<size_t>(indices[b])];
    int64_t dy = 0, dx = 0;
    bool flip = false;
    if (augment != nullptr) {
      dy = static_cast<int64_t>(augment->Below(9)) - 4;
      dx = static_cast<int64_t>(augment->Below(9)) - 4;
      flip = augment->Below(2) == 1;
    }
    for (int64_t ch = 0; ch < c; ++ch) {
      const float scale = 1.0f / (255.0f * norm.std[ch]);
      const float offset = -norm.mean[ch] / norm.std[ch];  // also the value of the zero padding
      const uint8_t* plane = image + ch * h * w;
      float* dst = out_images + (b * c + ch) * h * w;
      for (int64_t y = 0; y < h; ++y) {
        const int64_t sy = y + dy;
        for (int64_t x = 0; x < w; ++x) {
          const int64_t sx = (flip ? w - 1 - x : x) + dx;
          dst[y * w + x] = (sy < 0 || sy >= h || sx < 0 || sx >= w) ? offset : plane[sy * w + sx] * scale + offset;
        }
      }
    }
  }
}

namespace {

// CIFAR-10 and Fashion-MNIST both have ten classes; the model is built before the data
// is read, so this is fixed here rather than taken from the files.
constexpr int64_t kClasses = 10;

class ImageProblem : public TrainingProblem {
 public:
  ImageProblem(std::string model, DatasetSpec dataset, bool augment, uint64_t seed)
      : model_(std::move(model)), dataset_(std::move(dataset)), augment_(augment && model_ == "resnet20"), seed_(seed) {
    norm_ = cifar() ? Normalization{{0.4914f, 0.4822f, 0.4465f}, {0.2470f, 0.2435f, 0.2616f}}
                    : Normalization{{0.2860f}, {0.3530f}};
  }

  Status Load() override {
    if (dataset_.source == "synthetic") {
      train_ = SyntheticImages(cifar() ? 50000 : 60000, cifar() ? 3 : 1, cifar() ? 32 : 28, kClasses, seed_);
      test_ = SyntheticImages(10000, cifar() ? 3 : 1, cifar() ? 32 : 28, kClasses, seed_ + 1);
    } else if (cifar()) {
      ASSIGN_OR_RETURN(const std::string dir, ResolveDatasetDir(dataset_, "data_batch_1.bin"));
      ASSIGN_OR_RETURN(train_, LoadCifar10(dir, true));
      ASSIGN_OR_RETURN(test_, LoadCifar10(dir, false));
    } else {
      ASSIGN_OR_RETURN(const std::string dir, ResolveDatasetDir(dataset_, "train-labels-idx1-ubyte.gz"));
      ASSIGN_OR_RETURN(train_, LoadIdxImages(IdxPath(dir, "train-images-idx3-ubyte"),
                                             IdxPath(dir, "train-labels-idx1-ubyte"), kClasses));
      ASSIGN_OR_RETURN(test_, LoadIdxImages(IdxPath(dir, "t10k-images-idx3-ubyte"),
                                            IdxPath(dir, "t10k-labels-idx1-ubyte"), kClasses));
    }
    return Status::Ok();
  }

  torch::nn::AnyModule BuildModel() override { return MakeImageModel(model_, kClasses); }
  int64_t train_count() const override { return train_.count; }
  int64_t test_count() const override { return test_.count; }

  Status TrainBatch(const int64_t* indices, int64_t n, SplitMix64& rng, torch::Tensor* inputs,
                    torch::Tensor* targets) override {
    Resize(n, inputs, targets);
    FillImageBatch(train_, norm_, indices, n, augment_ ? &rng : nullptr, inputs->data_ptr<float>(),
                   targets->data_ptr<int64_t>());
    return Status::Ok();
  }

  Status TestBatch(int64_t begin, int64_t n, torch::Tensor* inputs, torch::Tensor* targets) override {
    Resize(n, inputs, targets);
    std::vector<int64_t> indices(static_cast<size_t>(n));
    std::iota(indices.begin(), indices.end(), begin);
    FillImageBatch(test_, norm_, indices.data(), n, nullptr, inputs->data_ptr<float>(), targets->data_ptr<int64_t>());
    return Status::Ok();
  }

  torch::Tensor LossSum(const torch::Tensor& outputs, const torch::Tensor& targets) override {
    namespace F = torch::nn::functional;
    return F::cross_entropy(outputs, targets, F::CrossEntropyFuncOptions().reduction(torch::kSum));
  }

  torch::Tensor MetricSum(const torch::Tensor& outputs, const torch::Tensor& targets) override {
    return outputs.argmax(1).eq(targets).sum();
  }

 private:
  bool cifar() const { return model_ == "resnet20"; }

  void Resize(int64_t n, torch::Tensor* inputs, torch::Tensor* targets) const {
    const ImageDataset& shape = train_;
    if (!inputs->defined() || inputs->size(0) != n) {
      *inputs = torch::empty({n, shape.channels, shape.height, shape.width});
      *targets = torch::empty({n}, torch::kLong);
    }
  }

  std::string model_;
  DatasetSpec dataset_;
  bool augment_;
  uint64_t seed_;
  Normalization norm_;
  ImageDataset train_;
  ImageDataset test_;
};

class ImageClassificationTask : public Task {
 public:
  explicit ImageClassificationTask(std::string model) : model_(std::move(model)) {}

  StatusOr<TaskOutcome> Run(TaskContext& context) override {
    const BenchmarkSpec& spec = context.benchmark.spec;
    ASSIGN_OR_RETURN(const SgdRecipe recipe, ReadSgdRecipe(spec));
    RecipeReader read(spec.hyperparameters);
    const bool augment = read.Bool("augment");
    RETURN_IF_ERROR(read.status());
    ImageProblem problem(model_, spec.dataset, augment, static_cast<uint64_t>(recipe.seed));
    return TrainSyncSgd(context, problem, recipe);
  }

 private:
  std::string model_;
};

}  // namespace

std::unique_ptr<Task> NewImageClassificationTask(const std::string& model) {
  return std::make_unique<ImageClassificationTask>(model);
}

}  // namespace ergobench
