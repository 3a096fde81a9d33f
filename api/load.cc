#include "api/load.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "api/benchmark_codec.h"
#include "api/dataset_codec.h"
#include "api/dataset_validation.h"
#include "api/defaults.h"
#include "api/validation.h"
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

}  // namespace

StatusOr<std::vector<Benchmark>> LoadBenchmarks(std::string_view text, const std::string& source) {
  ASSIGN_OR_RETURN(std::vector<nlohmann::json> documents, ParseYamlDocuments(text, source));
  std::vector<Benchmark> benchmarks;
  std::vector<Dataset> datasets;
  std::string failures;
  for (size_t i = 0; i < documents.size(); ++i) {
    std::string where = documents.size() == 1 ? source : source + ", document " + std::to_string(i + 1);
    Status status;
    if (documents[i].is_object() && documents[i].value("kind", "") == kDatasetKind) {
      StatusOr<Dataset> dataset = ResolveDatasetDocument(documents[i], where);
      status = dataset.status();
      if (dataset.ok()) datasets.push_back(std::move(dataset).value());
    } else {
      StatusOr<Benchmark> benchmark = ResolveBenchmark(documents[i], where);
      status = benchmark.status();
      if (benchmark.ok()) benchmarks.push_back(std::move(benchmark).value());
    }
    if (!status.ok()) failures += (failures.empty() ? "" : "\n") + status.message();
  }
  if (!failures.empty()) return Status::InvalidArgument(failures);
  if (benchmarks.empty()) return Status::InvalidArgument(source + ": holds no Benchmark document");
  ResolveRefsFromFile(datasets, &benchmarks);
  return benchmarks;
}

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::Unavailable(path + ": read failed: " + std::strerror(errno));
  return text.str();
}

StatusOr<std::vector<Benchmark>> LoadBenchmarkFile(const std::string& path) {
  std::string text;
  if (path == "-") {
    std::ostringstream in;
    in << std::cin.rdbuf();
    text = in.str();
  } else {
    ASSIGN_OR_RETURN(text, ReadFile(path));
  }
  return LoadBenchmarks(text, path == "-" ? "<stdin>" : path);
}

}  // namespace ergobench
