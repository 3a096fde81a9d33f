#include "operator/controller/dataset_ref.h"

#include "api/dataset_codec.h"

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

}  // namespace ergobench::controller
