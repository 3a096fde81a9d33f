// ergobench-universes: writes the synthetic CosmoFlow universes (runner/data/cosmo_universes.h)
// as the MLPerf HPC reference's preprocessed TFRecords (runner/data/cosmo_records.h): <into>/train/
// and <into>/validation/, one gzip'd record a file. The same data set for the reference's
// TensorFlow code and for ours (task cosmoflow, dataset.source path): universe i of train/ is
// the one a synthetic run generates as its i-th, validation/'s the ones it validates on.
#include <ATen/Parallel.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>

#include <CLI/CLI.hpp>

#include "runner/data/cosmo_records.h"
#include "runner/data/cosmo_universes.h"
#include "runner/data/tfrecord.h"
#include "runner/models/cosmoflow.h"
#include "runner/runner.h"

namespace ergobench {
namespace {

struct Options {
  std::string model = "reference";
  int64_t train = 1024;
  int64_t validation = 256;
  int64_t seed = 2019;  // the task's universeSeed
  std::string into;
  bool gzip = true;
};

// Universes [first, first + n) of `source` as <folder>/univ_<seed>_<i>.tfrecord, i from 0 in ten
// digits: name order is index order, as the task reads them.
Status WriteSet(const UniverseSource& source, const CosmoVolume& volume, const Options& options, int64_t first, int64_t n,
                const std::string& folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) return Status::FailedPrecondition(folder + ": cannot create: " + error.message());
  std::mutex mutex;
  Status status;
  at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
    std::vector<int16_t> counts(static_cast<size_t>(volume.Values()));
    for (int64_t i = begin; i < end; ++i) {
      source.Counts(first + i, counts.data());
      const ScaledParameters parameters = source.Parameters(first + i);
      char name[64];
      std::snprintf(name, sizeof name, "/univ_%lld_%010lld.tfrecord", static_cast<long long>(options.seed),
                    static_cast<long long>(i));
      const Status written = WriteTfRecordFile(folder + name, {EncodeCosmoRecord(counts.data(), parameters.data(), volume)},
                                               options.gzip);
      if (!written.ok()) {
        std::lock_guard<std::mutex> lock(mutex);
        if (status.ok()) status = written;
        return;
      }
    }
  });
  return status;
}

int Run(const Options& options) {
  StatusOr<CosmoFlowConfig> config = CosmoFlowPreset(options.model);
  if (!config.ok()) {
    std::cerr << "ergobench-universes: --model: " << config.status().message() << "\n";
    return kExitBadConfig;
  }
  const CosmoVolume volume{config->side, config->channels};
  const UniverseSource source(volume.side, volume.channels, static_cast<uint64_t>(options.seed));
  struct Set {
    const char* folder;
    int64_t first;  // the task's indices: training universes from 0, validation ones apart
    int64_t count;
  };
  const Set sets[] = {{"train", 0, options.train}, {"validation", kValidationUniverseIndexBase, options.validation}};
  for (const Set& set : sets) {
    const Status written = WriteSet(source, volume, options, set.first, set.count, options.into + "/" + set.folder);
    if (!written.ok()) {
      std::cerr << "ergobench-universes: " << written.message() << "\n";
      return 1;
    }
  }
  std::cout << options.train << " training and " << options.validation << " validation universes of "
            << volume.channels << " x " << volume.side << "^3 in " << options.into << "\n";
  return 0;
}

}  // namespace
}  // namespace ergobench

int main(int argc, char** argv) {
  ergobench::Options options;
  CLI::App app{"ergobench-universes: writes synthetic CosmoFlow universes as the MLPerf HPC reference's TFRecords"};
  app.add_option("--model", options.model, "the volume of a cosmoflow preset: reference (4 x 128^3), small, tiny");
  app.add_option("--train", options.train, "training universes")->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  app.add_option("--validation", options.validation, "validation universes")->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  app.add_option("--seed", options.seed, "the universes' seed (the task's universeSeed)")->check(CLI::Range(0, 2147483647));
  app.add_option("--into", options.into, "the data folder: its train/ and validation/ are written")->required();
  app.add_flag("--gzip,!--no-gzip", options.gzip, "gzip each file, as the reference's are (the default)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : ergobench::kExitBadConfig;
  }
  return ergobench::Run(options);
}
