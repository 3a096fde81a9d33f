#include "api/load.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "api/benchmark_codec.h"
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

StatusOr<std::vector<Benchmark>> LoadBenchmarks(std::string_view text, const std::string& source) {
  ASSIGN_OR_RETURN(std::vector<nlohmann::json> documents, ParseYamlDocuments(text, source));
  if (documents.empty()) return Status::InvalidArgument(source + ": holds no Benchmark document");
  std::vector<Benchmark> benchmarks;
  std::string failures;
  for (size_t i = 0; i < documents.size(); ++i) {
    std::string where = documents.size() == 1 ? source : source + ", document " + std::to_string(i + 1);
    StatusOr<Benchmark> benchmark = ResolveBenchmark(documents[i], where);
    if (!benchmark.ok()) {
      failures += (failures.empty() ? "" : "\n") + benchmark.status().message();
      continue;
    }
    benchmarks.push_back(std::move(benchmark).value());
  }
  if (!failures.empty()) return Status::InvalidArgument(failures);
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
