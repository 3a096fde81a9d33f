#include "operator/controller/benchmark/dataset_ref.h"

#include "api/v1alpha1/dataset_codec.h"

namespace ergobench::controller {

std::optional<DatasetWait> ResolveDatasetRef(BenchmarkSpec* spec, const std::optional<nlohmann::json>& object) {
  const std::string& ref = spec->dataset.ref;
  if (!object) {
    return DatasetWait{"DatasetNotFound", "Dataset " + ref + " does not exist in this namespace; create it, "
                                          "and the Benchmark starts once it is Ready"};
  }
  FieldErrors ignored;  // the Dataset controller reports its own problems
  const Dataset dataset = DecodeDataset(*object, &ignored);
  const DatasetStatus& status = dataset.status;
  const bool current = status.observed_generation == dataset.metadata.generation;
  const std::string why = status.conditions.empty() ? "" : ": " + status.conditions.front().message;
  if (current && status.phase == kDatasetFailed) {
    return DatasetWait{"DatasetFailed", "Dataset " + ref + " failed" + why + "; fix it, and the Benchmark starts once it is Ready"};
  }
  if (!current || status.phase != kDatasetReady || status.claim_name.empty()) {
    return DatasetWait{"DatasetNotReady", "waiting for Dataset " + ref + " to be Ready (" +
                                              (status.phase.empty() ? kDatasetPending : status.phase) + why + ")"};
  }
  spec->dataset.volume = {{"persistentVolumeClaim", {{"claimName", status.claim_name}}}};
  const std::string& inside = spec->dataset.path;
  spec->dataset.path = status.path.empty() ? inside : inside.empty() ? status.path : status.path + "/" + inside;
  return std::nullopt;
}

std::vector<std::string> BenchmarksReading(const runtime::Store& benchmarks, const std::string& key) {
  using nlohmann::json;
  std::vector<std::string> keys;
  benchmarks.ForEach([&](const json& b) {
    const json& spec = b.value("spec", json::object());
    if (!spec.is_object() || !spec.contains("dataset") || !spec["dataset"].is_object()) return;
    const json& ref = spec["dataset"].value("ref", json());
    if (ref.is_string() && b["metadata"].value("namespace", "") + "/" + ref.get<std::string>() == key) {
      keys.push_back(runtime::ObjectKey(b));
    }
  });
  return keys;
}

}  // namespace ergobench::controller
