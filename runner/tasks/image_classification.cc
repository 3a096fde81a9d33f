#include "runner/tasks/image_classification.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <torch/torch.h>

#include "api/units.h"
#include "runner/data/cifar10_reader.h"
#include "runner/data/idx_reader.h"
#include "runner/data/shard.h"
#include "runner/dist/communicator.h"
#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/models/models.h"
#include "runner/progress_writer.h"
#include "runner/stop_signal.h"
#include "runner/tasks/lr_schedule.h"

namespace ergobench {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct Recipe {
  int64_t batch = 0;
  double lr = 0;
  double momentum = 0;
  bool nesterov = false;
  double weight_decay = 0;
  double plateau_factor = 0;
  int plateau_patience = 0;
  bool augment = false;
  int64_t seed = 0;
  int64_t warmup_steps = 0;
  int64_t train_samples = 0;
  int64_t max_epochs = 0;
  std::optional<double> goal;  // absent for synthetic data: throughput only
};

Recipe ReadRecipe(const BenchmarkSpec& spec) {
  const nlohmann::json& h = spec.hyperparameters;
  Recipe r;
  r.batch = h.at("batchSize").get<int64_t>();
  r.lr = h.at("learningRate").get<double>();
  r.momentum = h.at("momentum").get<double>();
  r.nesterov = h.at("nesterov").get<bool>();
  r.weight_decay = h.at("weightDecay").get<double>();
  r.plateau_factor = h.at("plateauFactor").get<double>();
  r.plateau_patience = h.at("plateauPatience").get<int>();
  r.augment = h.at("augment").get<bool>();
  r.seed = h.at("seed").get<int64_t>();
  r.warmup_steps = h.at("warmupSteps").get<int64_t>();
  r.train_samples = h.at("trainSamples").get<int64_t>();
  r.max_epochs = spec.max_epochs.value_or(1);
  if (spec.dataset.source != "synthetic" && spec.goal) r.goal = spec.goal->target;
  return r;
}

struct Splits {
  ImageDataset train;
  ImageDataset test;
  std::array<float, 3> mean{};
  std::array<float, 3> std{};
};

// IDX files as Debian ships them (gzip), or uncompressed beside them.
std::string IdxPath(const std::string& dir, const std::string& name) {
  const std::string gz = dir + "/" + name + ".gz";
  return std::filesystem::exists(gz) ? gz : dir + "/" + name;
}

ImageDataset Synthetic(int64_t count, int64_t channels, int64_t side, int64_t classes, uint64_t seed) {
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

StatusOr<Splits> LoadSplits(const std::string& model, const DatasetSpec& dataset, uint64_t seed) {
  Splits s;
  const bool cifar = model == "resnet20";
  if (cifar) {
    s.mean = {0.4914f, 0.4822f, 0.4465f};  // CIFAR-10 per-channel statistics
    s.std = {0.2470f, 0.2435f, 0.2616f};
  } else {
    s.mean = {0.2860f, 0.2860f, 0.2860f};  // Fashion-MNIST
    s.std = {0.3530f, 0.3530f, 0.3530f};
  }
  if (dataset.source == "synthetic") {
    s.train = Synthetic(cifar ? 50000 : 60000, cifar ? 3 : 1, cifar ? 32 : 28, 10, seed);
    s.test = Synthetic(10000, cifar ? 3 : 1, cifar ? 32 : 28, 10, seed + 1);
    return s;
  }
  if (cifar) {
    ASSIGN_OR_RETURN(s.train, LoadCifar10(dataset.path, true));
    ASSIGN_OR_RETURN(s.test, LoadCifar10(dataset.path, false));
  } else {
    ASSIGN_OR_RETURN(s.train, LoadIdxImages(IdxPath(dataset.path, "train-images-idx3-ubyte"),
                                            IdxPath(dataset.path, "train-labels-idx1-ubyte"), 10));
    ASSIGN_OR_RETURN(s.test, LoadIdxImages(IdxPath(dataset.path, "t10k-images-idx3-ubyte"),
                                           IdxPath(dataset.path, "t10k-labels-idx1-ubyte"), 10));
  }
  return s;
}

// Turns uint8 samples into a normalised float batch, with CIFAR's random 4-pixel-padded
// crop and horizontal flip when `augment` is set. Plain loops: this is the data path, and
// it must stay far from being the bottleneck.
void FillBatch(const ImageDataset& data, const Splits& splits, const int64_t* indices, int64_t n, bool augment,
               SplitMix64* rng, float* out_images, int64_t* out_labels) {
  const int64_t c = data.channels, h = data.height, w = data.width;
  for (int64_t b = 0; b < n; ++b) {
    const uint8_t* image = data.image(indices[b]);
    out_labels[b] = data.labels[static_cast<size_t>(indices[b])];
    int64_t dy = 0, dx = 0;
    bool flip = false;
    if (augment) {
      dy = static_cast<int64_t>(rng->Below(9)) - 4;
      dx = static_cast<int64_t>(rng->Below(9)) - 4;
      flip = rng->Below(2) == 1;
    }
    for (int64_t ch = 0; ch < c; ++ch) {
      const float scale = 1.0f / (255.0f * splits.std[ch]);
      const float offset = -splits.mean[ch] / splits.std[ch];  // also the value of padding
      const uint8_t* plane = image + ch * h * w;
      float* dst = out_images + ((b * c + ch) * h) * w;
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

// Every rank must leave the loop at the same step, or the others would wait in an
// all-reduce for a peer that has gone; so the stop request is itself all-reduced.
Status AgreeToContinue(Communicator& comm) {
  int64_t stop = StopRequested() ? 1 : 0;
  RETURN_IF_ERROR(comm.AllReduce(&stop, 1, DType::kInt64, ReduceOp::kMax));
  if (stop != 0) return Status::Cancelled("stopped by a signal during training");
  return Status::Ok();
}

class ImageClassificationTask : public Task {
 public:
  explicit ImageClassificationTask(std::string model) : model_name_(std::move(model)) {}

  StatusOr<TaskOutcome> Run(TaskContext& context) override {
    Communicator& comm = context.communicator;
    const Benchmark& benchmark = context.benchmark;
    const Recipe recipe = ReadRecipe(benchmark.spec);
    const int k = comm.world_size();
    MlLog& mllog = context.mllog;
    mllog.Point("submission_benchmark", benchmark.spec.task);
    mllog.Point("seed", recipe.seed);
    mllog.Point("global_batch_size", recipe.batch * k);
    mllog.Point("opt_base_learning_rate", recipe.lr);
    mllog.Stop("init_stop");

    // MLPerf: the clock starts before the data is first touched.
    const auto run_start = Clock::now();
    mllog.Start("run_start");
    ASSIGN_OR_RETURN(Splits splits, LoadSplits(model_name_, benchmark.spec.dataset, static_cast<uint64_t>(recipe.seed)));
    const int64_t train_count =
        recipe.train_samples > 0 ? std::min(recipe.train_samples, splits.train.count) : splits.train.count;
    const int64_t steps_per_epoch = StepsPerEpoch(train_count, k, recipe.batch);
    if (steps_per_epoch == 0) {
      return Status::InvalidArgument("spec.hyperparameters.batchSize: " + std::to_string(recipe.batch) +
                                     " per worker is more than " + std::to_string(train_count) + " samples over " +
                                     std::to_string(k) + " ranks can fill");
    }
    mllog.Point("train_samples", train_count);
    mllog.Point("eval_samples", splits.test.count);

    torch::manual_seed(static_cast<uint64_t>(recipe.seed));
    torch::nn::AnyModule any = MakeImageModel(model_name_, splits.train.classes);
    std::shared_ptr<torch::nn::Module> model = any.ptr();
    std::vector<torch::Tensor> params = model->parameters();
    RETURN_IF_ERROR(BroadcastFromRankZero(comm, params));
    torch::optim::SGD optimizer(params, torch::optim::SGDOptions(recipe.lr)
                                            .momentum(recipe.momentum)
                                            .nesterov(recipe.nesterov)
                                            .weight_decay(recipe.weight_decay));
    LrSchedule schedule(recipe.lr, k, recipe.plateau_factor, recipe.plateau_patience);
    int64_t total_elements = 0;
    for (const torch::Tensor& p : params) total_elements += p.numel();
    torch::Tensor flat_grads = torch::zeros({total_elements});

    const int64_t c = splits.train.channels, h = splits.train.height, w = splits.train.width;
    torch::Tensor images = torch::empty({recipe.batch, c, h, w});
    torch::Tensor labels = torch::empty({recipe.batch}, torch::kLong);
    std::map<std::string, double> phases;
    for (const char* phase : kPhases) phases[phase] = 0;
    auto timed = [&](const char* phase, auto&& fn) {
      const auto t0 = Clock::now();
      fn();
      const double seconds = Since(t0);
      phases[phase] += seconds;
      context.metrics.AddPhaseSeconds(phase, seconds);
      return seconds;
    };

    TaskOutcome outcome;
    Figures& f = outcome.figures;
    int64_t global_step = 0;
    double window_seconds = 0;
    int64_t window_samples = 0;
    double last_accuracy = 0;
    int64_t epoch = 0;
    for (epoch = 1; epoch <= recipe.max_epochs; ++epoch) {
      mllog.Start("epoch_start", {{"epoch_num", epoch}});
      context.metrics.SetEpoch(epoch);
      const std::vector<int64_t> shard =
          ShardIndices(train_count, k, comm.rank(), epoch, static_cast<uint64_t>(recipe.seed));
      SplitMix64 augment_rng(static_cast<uint64_t>(recipe.seed) * 1000003u + static_cast<uint64_t>(comm.rank()) * 7919u +
                             static_cast<uint64_t>(epoch));
      model->train();
      double loss_sum = 0;
      for (int64_t step = 0; step < steps_per_epoch; ++step) {
        if (step % 25 == 0) RETURN_IF_ERROR(AgreeToContinue(comm));
        const auto step_start = Clock::now();
        timed("data", [&] {
          FillBatch(splits.train, splits, shard.data() + step * recipe.batch, recipe.batch,
                    recipe.augment && model_name_ == "resnet20", &augment_rng, images.data_ptr<float>(),
                    labels.data_ptr<int64_t>());
        });
        const double lr = schedule.At(static_cast<double>(epoch - 1) + static_cast<double>(step) / steps_per_epoch);
        for (auto& group : optimizer.param_groups()) static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
        torch::Tensor loss;
        timed("forward", [&] { loss = torch::nn::functional::cross_entropy(any.forward(images), labels); });
        timed("backward", [&] {
          optimizer.zero_grad();
          loss.backward();
        });
        Status reduced = Status::Ok();
        timed("optimizer", [&] { PackGradients(params, flat_grads); });
        timed("communication", [&] {
          reduced = comm.AllReduce(flat_grads.data_ptr<float>(), static_cast<size_t>(total_elements),
                                   DType::kFloat32, ReduceOp::kSum);
        });
        RETURN_IF_ERROR(reduced);
        timed("optimizer", [&] {
          flat_grads.div_(k);
          UnpackGradients(flat_grads, params);
          optimizer.step();
        });
        loss_sum += loss.item<double>();
        const double step_seconds = Since(step_start);
        context.metrics.ObserveStep(step_seconds);
        context.metrics.AddSamples(static_cast<double>(recipe.batch));
        if (++global_step > recipe.warmup_steps) {
          window_seconds += step_seconds;
          window_samples += recipe.batch;
        }
        if ((step + 1) % std::max<int64_t>(1, steps_per_epoch / 10) == 0) {
          ProgressEvent event;
          event.stage = "run";
          event.epoch = epoch;
          event.done = step + 1;
          event.total = steps_per_epoch;
          event.loss = loss_sum / static_cast<double>(step + 1);
          event.metric = "accuracy";
          if (epoch > 1) event.value = last_accuracy;
          context.progress.Report(event);
        }
      }
      mllog.Stop("epoch_stop", {{"epoch_num", epoch}});
      const double train_loss = loss_sum / static_cast<double>(steps_per_epoch);
      context.metrics.SetTrainLoss(train_loss);

      double val_loss = 0;
      Status evaluated = Status::Ok();
      timed("eval", [&] { evaluated = Evaluate(comm, *model, any, splits, &last_accuracy, &val_loss); });
      RETURN_IF_ERROR(evaluated);
      context.metrics.SetEvalAccuracy(last_accuracy);
      mllog.Point("eval_accuracy", last_accuracy, {{"epoch_num", epoch}});
      schedule.OnValidationLoss(val_loss);
      if (comm.rank() == 0) {
        std::printf("[%s] epoch %lld: train loss %.4f, eval loss %.4f, accuracy %.4f, lr %.4g, %s\n",
                    benchmark.spec.task.c_str(), static_cast<long long>(epoch), train_loss, val_loss, last_accuracy,
                    schedule.At(static_cast<double>(epoch)), FormatSeconds(Since(run_start)).c_str());
        std::fflush(stdout);
      }
      ProgressEvent event;
      event.stage = "run";
      event.epoch = epoch;
      event.done = steps_per_epoch;
      event.total = steps_per_epoch;
      event.loss = train_loss;
      event.metric = "accuracy";
      event.value = last_accuracy;
      context.progress.Report(event);
      if (recipe.goal && last_accuracy >= *recipe.goal) {
        f.goal_reached = true;
        f.time_to_accuracy_seconds = Since(run_start);
        context.metrics.SetGoalReached(true);
        break;
      }
    }
    const bool reached = f.goal_reached.value_or(false);
    mllog.Stop("run_stop", {{"status", reached ? "success" : "aborted"}});
    f.run_seconds = Since(run_start);
    f.epochs = std::min(epoch, recipe.max_epochs);
    if (recipe.goal && !reached) f.goal_reached = false;
    if (window_seconds > 0) f.samples_per_second = static_cast<double>(window_samples) / window_seconds;
    f.phase_seconds = phases;
    f.compute_seconds = phases["forward"] + phases["backward"] + phases["optimizer"];
    f.communication_seconds = phases["communication"];
    if (*f.compute_seconds + *f.communication_seconds > 0) {
      f.communication_ratio = *f.communication_seconds / (*f.compute_seconds + *f.communication_seconds);
    }
    char summary[256];
    std::snprintf(summary, sizeof summary, "accuracy %.4f after %lld epochs%s, %.1f samples/s/rank, communication %.1f%%",
                  last_accuracy, static_cast<long long>(*f.epochs),
                  recipe.goal ? (reached ? (", goal reached in " + FormatSeconds(*f.time_to_accuracy_seconds)).c_str()
                                         : ", goal not reached")
                              : "",
                  f.samples_per_second.value_or(0), 100 * f.communication_ratio.value_or(0));
    outcome.summary = summary;
    return outcome;
  }

 private:
  static void PackGradients(const std::vector<torch::Tensor>& params, torch::Tensor& flat) {
    int64_t offset = 0;
    for (const torch::Tensor& p : params) {
      const int64_t n = p.numel();
      if (p.grad().defined()) {
        flat.slice(0, offset, offset + n).copy_(p.grad().reshape({-1}));
      } else {
        flat.slice(0, offset, offset + n).zero_();
      }
      offset += n;
    }
  }

  static void UnpackGradients(const torch::Tensor& flat, std::vector<torch::Tensor>& params) {
    int64_t offset = 0;
    for (torch::Tensor& p : params) {
      const int64_t n = p.numel();
      if (p.grad().defined()) p.mutable_grad().copy_(flat.slice(0, offset, offset + n).view(p.sizes()));
      offset += n;
    }
  }

  static Status BroadcastFromRankZero(Communicator& comm, std::vector<torch::Tensor> tensors) {
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

  // The full validation set, sharded across ranks (each rank a contiguous slice) and summed
  // with one all-reduce. Batch-norm statistics are taken from rank 0 first, as DDP does, so
  // every rank evaluates the same model.
  static Status Evaluate(Communicator& comm, torch::nn::Module& model, torch::nn::AnyModule& any,
                         const Splits& splits, double* accuracy, double* loss) {
    RETURN_IF_ERROR(BroadcastFromRankZero(comm, model.buffers()));
    torch::NoGradGuard no_grad;
    model.eval();
    const ImageDataset& test = splits.test;
    const int64_t k = comm.world_size();
    const int64_t begin = test.count * comm.rank() / k;
    const int64_t end = test.count * (comm.rank() + 1) / k;
    constexpr int64_t kBatch = 500;
    double sums[3] = {0, 0, 0};  // correct, loss sum, samples
    std::vector<int64_t> indices;
    for (int64_t start = begin; start < end; start += kBatch) {
      const int64_t n = std::min(kBatch, end - start);
      indices.resize(static_cast<size_t>(n));
      std::iota(indices.begin(), indices.end(), start);
      torch::Tensor images = torch::empty({n, test.channels, test.height, test.width});
      torch::Tensor labels = torch::empty({n}, torch::kLong);
      FillBatch(test, splits, indices.data(), n, false, nullptr, images.data_ptr<float>(), labels.data_ptr<int64_t>());
      torch::Tensor logits = any.forward(images);
      sums[0] += logits.argmax(1).eq(labels).sum().item<double>();
      sums[1] += torch::nn::functional::cross_entropy(
                     logits, labels, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                     .item<double>();
      sums[2] += static_cast<double>(n);
    }
    RETURN_IF_ERROR(comm.AllReduce(sums, 3, DType::kFloat64, ReduceOp::kSum));
    *accuracy = sums[0] / sums[2];
    *loss = sums[1] / sums[2];
    return Status::Ok();
  }

  std::string model_name_;
};

}  // namespace

std::unique_ptr<Task> NewImageClassificationTask(const std::string& model) {
  return std::make_unique<ImageClassificationTask>(model);
}

}  // namespace ergobench
