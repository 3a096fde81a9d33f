#include "cli/results/results_export.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/contract/artifact_bundle.h"
#include "api/v1alpha1/benchmark_codec.h"
#include "base/json_reader.h"

namespace ergobench {

namespace fs = std::filesystem;

StatusOr<std::vector<std::string>> WriteResultsFolder(const nlohmann::json& config_map, const std::string& dir) {
  const std::string name = StringField(config_map.value("metadata", nlohmann::json::object()), "name");
  const nlohmann::json data = config_map.value("data", nlohmann::json::object());
  if (!data.is_object() || !data.contains("benchmark.json")) {
    return Status::InvalidArgument("ConfigMap " + name + " holds no benchmark.json: not the results of a Benchmark");
  }
  for (const auto& [key, value] : data.items()) {
    if (!IsPortableFileName(key) || !value.is_string()) {
      return Status::InvalidArgument("ConfigMap " + name + ": data key \"" + key + "\" is not a file name of a results folder");
    }
  }
  std::error_code error;
  if (fs::exists(dir, error)) return Status::AlreadyExists(dir + " exists; remove it, or export elsewhere with --to");
  fs::create_directories(dir, error);
  if (error) return Status::FailedPrecondition("cannot create " + dir + ": " + error.message());
  for (const auto& [key, value] : data.items()) {
    std::ofstream out(fs::path(dir) / key, std::ios::binary);
    out << value.get<std::string>();
    if (!out) return Status::FailedPrecondition("cannot write " + (fs::path(dir) / key).string());
  }
  std::vector<std::string> left_out;
  std::istringstream manifest(StringField(data, "MANIFEST"));
  for (std::string line; std::getline(manifest, line);) {
    if (line.rfind("left-out\t", 0) == 0) left_out.push_back(line);
  }
  return left_out;
}

std::vector<Benchmark> KeptResultsOfDeletedBenchmarks(const std::vector<nlohmann::json>& config_maps,
                                                     const std::set<std::string>& live_uids) {
  std::vector<Benchmark> kept;
  for (const nlohmann::json& cm : config_maps) {
    const nlohmann::json metadata = cm.value("metadata", nlohmann::json::object());
    const std::string uid = metadata.value("annotations", nlohmann::json::object()).value(kResultsOfUidAnnotation, "");
    const nlohmann::json data = cm.value("data", nlohmann::json::object());
    if (uid.empty() || live_uids.contains(uid) || !data.is_object() || !data.value("benchmark.json", nlohmann::json()).is_string()) {
      continue;
    }
    const nlohmann::json benchmark = nlohmann::json::parse(data["benchmark.json"].get<std::string>(), nullptr, false);
    FieldErrors ignored;  // the operator wrote it; show what decodes, as for live Benchmarks
    if (benchmark.is_object()) kept.push_back(DecodeBenchmark(benchmark, &ignored));
  }
  return kept;
}

namespace {

// Calls `found(uid, text)` for each results ConfigMap that holds the file `key`.
template <typename Found>
void ForEachKeptFile(const std::vector<nlohmann::json>& config_maps, const char* key, Found&& found) {
  for (const nlohmann::json& cm : config_maps) {
    const nlohmann::json metadata = cm.value("metadata", nlohmann::json::object());
    const std::string uid = metadata.value("annotations", nlohmann::json::object()).value(kResultsOfUidAnnotation, "");
    const nlohmann::json data = cm.value("data", nlohmann::json::object());
    if (uid.empty() || !data.is_object() || !data.value(key, nlohmann::json()).is_string()) continue;
    found(uid, data[key].get_ref<const std::string&>());
  }
}

}  // namespace

std::map<std::string, nlohmann::json> AllreduceTablesOf(const std::vector<nlohmann::json>& config_maps) {
  std::map<std::string, nlohmann::json> tables;
  ForEachKeptFile(config_maps, "allreduce.json", [&tables](const std::string& uid, const std::string& text) {
    nlohmann::json table = nlohmann::json::parse(text, nullptr, false);
    if (table.is_object()) tables[uid] = std::move(table);
  });
  return tables;
}

TrainingCurves TrainingCurvesOf(const std::vector<nlohmann::json>& config_maps) {
  TrainingCurves curves;
  ForEachKeptFile(config_maps, "rank-0.mllog", [&curves](const std::string& uid, const std::string& text) {
    curves[uid] = ParseTrainingCurve(text);
  });
  return curves;
}

}  // namespace ergobench
