#include "runner/tasks/cosmoflow.h"

#include <ATen/Parallel.h>

#include <iterator>

#include "runner/data/cosmo_records.h"
#include "runner/data/cosmo_universes.h"
#include "runner/data/tfrecord.h"
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

// The universes: generated (synthetic), or read from the reference's TFRecords under a data
// folder (source path; its train/ and validation/).
class UniverseProblem : public TrainingProblem {
 public:
  // `train` 0 with a data folder: all of train/.
  UniverseProblem(CosmoFlowConfig config, int64_t train, int64_t test, uint64_t universe_seed, std::string data_folder)
      : config_(std::move(config)),
        source_(config_.side, config_.channels, universe_seed),
        train_count_(train),
        test_count_(test),
        data_folder_(std::move(data_folder)) {}

  EvalMetric metric() const override { return {"eval_error", "mae", false}; }
  torch::nn::AnyModule BuildModel() override { return torch::nn::AnyModule(CosmoFlow(config_)); }
  int64_t train_count() const override { return train_count_; }
  int64_t test_count() const override { return test_count_; }
  // Test volumes a forward takes: the reference's 4 x 128^3 ones 2 at a time, the tiny preset's 128.
  int64_t test_batch() const override { return std::max<int64_t>(1, 512 / std::max<int64_t>(1, VolumeFloats() >> 15)); }

  Status Load() override {
    RETURN_IF_ERROR(WithinBudget(train_count_, test_count_));
    if (data_folder_.empty()) {
      train_ = Generate(0, train_count_);
      test_ = Generate(kValidationUniverseIndexBase, test_count_);
      return Status::Ok();
    }
    ASSIGN_OR_RETURN(test_, Read(data_folder_ + "/validation", test_count_, "evalSamples",
                                 kUniverseBudgetBytes - train_count_ * VolumeBytes()));
    ASSIGN_OR_RETURN(train_, Read(data_folder_ + "/train", train_count_, "trainSamples",
                                  kUniverseBudgetBytes - test_count_ * VolumeBytes()));
    train_count_ = train_.counts.size(0);
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
  int64_t VolumeBytes() const { return VolumeFloats() * static_cast<int64_t>(sizeof(int16_t)); }

  Status WithinBudget(int64_t train, int64_t test) const {
    const int64_t bytes = (train + test) * VolumeBytes();
    if (bytes <= kUniverseBudgetBytes) return Status::Ok();
    return Status::InvalidArgument("spec.hyperparameters.trainSamples: " + std::to_string(train) + " and " +
                                   std::to_string(test) + " universes of " + std::to_string(config_.side) + "^3 are " +
                                   std::to_string(bytes >> 20) + " MiB a rank, over the " +
                                   std::to_string(kUniverseBudgetBytes >> 20) + " MiB of data it keeps");
  }

  struct Sample {
    std::vector<int16_t> counts;
    std::array<float, kCosmoParameters> parameters;
  };

  struct FileSamples {
    std::vector<Sample> samples;
    bool complete = false;  // the file's end was reached
  };

  // A file's samples after its first `skip`, at most `limit` of them, or the error naming it.
  // Complete when the file holds no more: one record past the limit is asked for, so that a file
  // of exactly `limit` records is not taken for one cut short (Read then read every file left
  // again for each file it took: 1,024 one-record files in 10 minutes, not 4 s).
  StatusOr<FileSamples> ReadFile(const std::string& path, int64_t skip, int64_t limit) const {
    ASSIGN_OR_RETURN(std::unique_ptr<TfRecordReader> reader, TfRecordReader::Open(path));
    const CosmoVolume volume{config_.side, config_.channels};
    FileSamples out;
    for (int64_t index = 0; index <= skip + limit; ++index) {
      ASSIGN_OR_RETURN(std::optional<std::string> record, reader->Next());
      if (!record) {
        out.complete = true;
        break;
      }
      if (index < skip || index == skip + limit) continue;
      Sample& sample = out.samples.emplace_back();
      sample.counts.resize(static_cast<size_t>(volume.Values()));
      const Status decoded = DecodeCosmoRecord(*record, volume, sample.counts.data(), sample.parameters.data());
      if (!decoded.ok()) {
        return Status::InvalidArgument(path + ": record " + std::to_string(index) + ": " + decoded.message() +
                                       " (spec.hyperparameters.model)");
      }
    }
    return out;
  }

  // The first `want` samples of `folder`'s files in name order (0: all), within `budget` bytes.
  // A round reads its first file alone, up to all the samples still wanted (or the budget's and
  // one more, to tell it is exceeded), then the next files a thread each, each up to the most a
  // file has held so far, as many as those samples allow: the reference's one sample a file reads
  // in parallel, and memory stays within the budget however many records a file holds.
  StatusOr<Universes> Read(const std::string& folder, int64_t want, const std::string& field, int64_t budget) const {
    StatusOr<std::vector<std::string>> listed = ListTfRecordFiles(folder);
    if (!listed.ok()) {
      return Status::InvalidArgument("spec.dataset.path: " + listed.status().message() +
                                     " (a CosmoFlow data folder holds train/ and validation/, of *.tfrecord files)");
    }
    const std::vector<std::string>& files = *listed;
    const auto named = [&](const std::string& what) {
      return Status::InvalidArgument("spec.hyperparameters." + field + ": " + folder + " (spec.dataset.path): " + what);
    };
    std::vector<Sample> samples;
    const auto take = [&](FileSamples& file) { std::move(file.samples.begin(), file.samples.end(), std::back_inserter(samples)); };
    size_t next = 0;       // the file to read on from
    int64_t skip = 0;      // its samples already taken
    int64_t per_file = 1;  // the most samples a file has given
    while (next < files.size() && (want == 0 || static_cast<int64_t>(samples.size()) < want)) {
      const int64_t room = budget / VolumeBytes() + 1 - static_cast<int64_t>(samples.size());
      const int64_t still = want == 0 ? room : std::min(room, want - static_cast<int64_t>(samples.size()));
      ASSIGN_OR_RETURN(FileSamples first, ReadFile(files[next], skip, still));
      const int64_t got = static_cast<int64_t>(first.samples.size());
      per_file = std::max(per_file, got);
      take(first);
      skip += got;
      if (first.complete) {
        ++next;
        skip = 0;
        const size_t round = std::min(files.size() - next, static_cast<size_t>((still - got) / per_file));
        std::vector<StatusOr<FileSamples>> read(round, FileSamples());
        at::parallel_for(0, static_cast<int64_t>(round), 1, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) read[static_cast<size_t>(i)] = ReadFile(files[next + static_cast<size_t>(i)], 0, per_file);
        });
        for (StatusOr<FileSamples>& file : read) {  // in order, up to the first file cut short
          if (!file.ok()) return file.status();
          const int64_t taken = static_cast<int64_t>(file->samples.size());
          take(*file);
          if (!file->complete) {
            skip = taken;
            break;
          }
          ++next;
        }
      }
      if (static_cast<int64_t>(samples.size()) * VolumeBytes() > budget) {
        return named("its samples of " + std::to_string(config_.side) + "^3 (" + std::to_string(samples.size()) +
                     " read) are over the " + std::to_string(kUniverseBudgetBytes >> 20) +
                     " MiB of data a rank keeps: ask for fewer");
      }
    }
    if (samples.empty() || static_cast<int64_t>(samples.size()) < want) {
      return named(std::to_string(samples.size()) + " samples in " + std::to_string(files.size()) +
                   " *.tfrecord files, " + (want > 0 ? std::to_string(want) + " wanted" : "at least 1 wanted"));
    }
    if (want > 0) samples.resize(static_cast<size_t>(want));
    const int64_t n = static_cast<int64_t>(samples.size());
    Universes u = EmptyUniverses(n);
    for (int64_t i = 0; i < n; ++i) {  // each sample freed as it is copied: memory stays the data's
      std::copy(samples[i].counts.begin(), samples[i].counts.end(), u.counts[i].data_ptr<int16_t>());
      std::copy(samples[i].parameters.begin(), samples[i].parameters.end(), u.parameters[i].data_ptr<float>());
      samples[i] = Sample();
    }
    return u;
  }

  Universes EmptyUniverses(int64_t n) const {
    const int64_t s = config_.side;
    return {torch::empty({n, config_.channels, s, s, s}, torch::kInt16), torch::empty({n, kUniverseParameters})};
  }

  Universes Generate(int64_t first, int64_t n) const {
    Universes u = EmptyUniverses(n);
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
  std::string data_folder_;
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
    const bool from_files = spec.dataset.source == "path";
    const int64_t train = recipe.train_samples > 0 || from_files ? recipe.train_samples : kDefaultTrainUniverses;
    context.mllog.Point("dropout", dropout);
    UniverseProblem problem(config, train, eval_samples, static_cast<uint64_t>(universe_seed),
                            from_files ? spec.dataset.path : "");
    return TrainSyncSgd(context, problem, recipe);
  }
};

}  // namespace

std::unique_ptr<Task> NewCosmoFlowTask() { return std::make_unique<CosmoFlowTask>(); }

}  // namespace ergobench
