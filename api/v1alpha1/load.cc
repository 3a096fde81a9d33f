#include "api/v1alpha1/load.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/dataset_codec.h"
#include "api/v1alpha1/dataset_validation.h"
#include "api/v1alpha1/defaults.h"
#include "api/v1alpha1/validation.h"
#include "base/json_reader.h"
#include "base/yaml_json.h"

namespace ergobench {

StatusOr<Benchmark> ResolveBenchmark(const nlohmann::json& document, const std::string& where) {
  FieldErrors errors;
  Benchmark benchmark = DecodeBenchmark(document, &errors);
  ApplyDefaults(&benchmark);
  errors.Append(ValidateBenchmark(benchmark));
  if (errors.empty()) return benchmark;
  std::string heading = where;
  if (!benchmark.metadata.name.empty()) heading += " (Benchmark \"" + benchmark.metadata.name + "\")";
  std::string message = heading + " is invalid:";
  for (const FieldError& e : errors.errors()) message += "\n  " + e.ToString();
  return Status::InvalidArgument(message);
}

namespace {

StatusOr<Dataset> ResolveDatasetDocument(const nlohmann::json& document, const std::string& where) {
  FieldErrors errors;
  Dataset dataset = DecodeDataset(document, &errors);
  errors.Append(ValidateDataset(dataset));
  if (errors.empty()) return dataset;
  std::string message = where + " (Dataset \"" + dataset.metadata.name + "\") is invalid:";
  for (const FieldError& e : errors.errors()) message += "\n  " + e.ToString();
  return Status::InvalidArgument(message);
}

// Without a cluster, a ref to a Dataset of the same file with a url source is that url: the
// runner fetches it into its cache once, as the staging Job does on a cluster.
void ResolveRefsFromFile(const std::vector<Dataset>& datasets, std::vector<Benchmark>* benchmarks) {
  for (Benchmark& benchmark : *benchmarks) {
    DatasetSpec& d = benchmark.spec.dataset;
    for (const Dataset& dataset : datasets) {
      if (d.ref.empty() || dataset.metadata.name != d.ref || dataset.spec.source.url.empty()) continue;
      d = DatasetSpec{};
      d.source = "url";
      d.url = dataset.spec.source.url;
      d.sha256 = dataset.spec.source.sha256;
    }
  }
}

StatusOr<LoadedSweep> ResolveSweepDocument(const nlohmann::json& document, const std::string& where) {
  FieldErrors errors;
  LoadedSweep loaded{DecodeSweep(document, &errors), {}};
  if (errors.empty()) loaded.points = ExpandSweep(loaded.sweep, &errors);
  if (errors.empty()) return loaded;
  std::string message = where + " (BenchmarkSweep \"" + loaded.sweep.metadata.name + "\") is invalid:";
  for (const FieldError& e : errors.errors()) message += "\n  " + e.ToString();
  return Status::InvalidArgument(message);
}

}  // namespace

StatusOr<LoadedDocuments> LoadDocuments(std::string_view text, const std::string& source) {
  ASSIGN_OR_RETURN(std::vector<nlohmann::json> documents, ParseYamlDocuments(text, source));
  LoadedDocuments loaded;
  std::vector<Dataset> datasets;
  std::string failures;
  for (size_t i = 0; i < documents.size(); ++i) {
    std::string where = documents.size() == 1 ? source : source + ", document " + std::to_string(i + 1);
    const std::string kind = StringField(documents[i], "kind");  // a wrong one is the codec's to report
    Status status;
    if (kind == kDatasetKind) {
      StatusOr<Dataset> dataset = ResolveDatasetDocument(documents[i], where);
      status = dataset.status();
      if (dataset.ok()) datasets.push_back(std::move(dataset).value());
    } else if (kind == kSweepKind) {
      StatusOr<LoadedSweep> sweep = ResolveSweepDocument(documents[i], where);
      status = sweep.status();
      if (sweep.ok()) {
        for (const SweepPoint& point : sweep->points) loaded.benchmarks.push_back(point.benchmark);
        loaded.sweeps.push_back(std::move(sweep).value());
      }
    } else {
      StatusOr<Benchmark> benchmark = ResolveBenchmark(documents[i], where);
      status = benchmark.status();
      if (benchmark.ok()) loaded.benchmarks.push_back(std::move(benchmark).value());
    }
    if (!status.ok()) failures += (failures.empty() ? "" : "\n") + status.message();
  }
  if (!failures.empty()) return Status::InvalidArgument(failures);
  if (loaded.benchmarks.empty()) return Status::InvalidArgument(source + ": holds no Benchmark document");
  ResolveRefsFromFile(datasets, &loaded.benchmarks);
  return loaded;
}

StatusOr<std::vector<Benchmark>> LoadBenchmarks(std::string_view text, const std::string& source) {
  ASSIGN_OR_RETURN(LoadedDocuments loaded, LoadDocuments(text, source));
  return std::move(loaded.benchmarks);
}

StatusOr<std::string> ReadFile(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open: " + std::strerror(errno));
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    const size_t got = static_cast<size_t>(in.gcount());
    if (got > limit - text.size()) {
      return Status::InvalidArgument(path + ": larger than " + std::to_string(limit) + " bytes");
    }
    text.append(buffer, got);
  }
  if (in.bad()) return Status::Unavailable(path + ": read failed: " + std::strerror(errno));
  return text;
}

StatusOr<LoadedDocuments> LoadDocumentFile(const std::string& path) {
  std::string text;
  if (path == "-") {
    std::ostringstream in;
    in << std::cin.rdbuf();
    text = in.str();
  } else {
    ASSIGN_OR_RETURN(text, ReadFile(path));
  }
  return LoadDocuments(text, path == "-" ? "<stdin>" : path);
}

StatusOr<std::vector<Benchmark>> LoadBenchmarkFile(const std::string& path) {
  ASSIGN_OR_RETURN(LoadedDocuments loaded, LoadDocumentFile(path));
  return std::move(loaded.benchmarks);
}

}  // namespace ergobench
