#include "api/v1alpha1/dataset_codec.h"

#include "api/v1alpha1/object_codec.h"
#include "base/json_fields.h"
#include "base/json_reader.h"

namespace ergobench {
namespace {


// A Kubernetes quantity, written as a string ("2Gi").
void ReadSize(ObjectReader* r, const std::string& key, DatasetStorage* out) {
  const nlohmann::json* size = r->Raw(key);
  if (size == nullptr) return;
  if (size->is_string()) {
    out->size = size->get<std::string>();
  } else {
    r->errors()->Add(r->PathOf(key), "must be a quantity such as \"2Gi\", got " + JsonTypeName(*size));
  }
}
void WriteSize(const DatasetStorage& storage, const std::string& key, nlohmann::json* out) {
  if (!storage.size.empty()) (*out)[key] = storage.size;
}

const JsonFields<DatasetResourceSpec>& DatasetSpecFields() {
  using Source = DatasetSource;
  static const JsonFields<Source> claim =
      JsonFields<Source>().Add("claimName", &Source::claim_name).Add("path", &Source::claim_path);
  static const JsonFields<Source> source = JsonFields<Source>()
                                               .Add("url", &Source::url)
                                               .Add("sha256", &Source::sha256)
                                               .Within("persistentVolumeClaim", claim);
  static const JsonFields<DatasetStorage> storage = JsonFields<DatasetStorage>()
                                                        .Custom("size", ReadSize, WriteSize)
                                                        .Add("storageClassName", &DatasetStorage::storage_class_name)
                                                        .Add("accessModes", &DatasetStorage::access_modes);
  using S = DatasetResourceSpec;
  static const JsonFields<S> fields =
      JsonFields<S>().Object("source", &S::source, source, Written::kAlways).Object("storage", &S::storage, storage);
  return fields;
}

const JsonFields<DatasetStatus>& DatasetStatusFields() {
  using S = DatasetStatus;
  static const JsonFields<S> fields = JsonFields<S>()
                                          .Add("phase", &S::phase)
                                          .List("conditions", &S::conditions, ConditionFields())
                                          .Add("claimName", &S::claim_name)
                                          .Add("path", &S::path)
                                          .Add("bytes", &S::bytes)
                                          .Add("size", &S::size)
                                          .Add("files", &S::files)
                                          .Add("stagedTime", &S::staged_time)
                                          .Add("stagingSeconds", &S::staging_seconds)
                                          .Add("stagingBytesPerSecond", &S::staging_bytes_per_second)
                                          .Add("observedGeneration", &S::observed_generation);
  return fields;
}

const JsonFields<Dataset>& DatasetFields() {
  static const JsonFields<Dataset> fields =
      ResourceFields(&Dataset::spec, DatasetSpecFields(), &Dataset::status, DatasetStatusFields());
  return fields;
}

}  // namespace

std::string StagedDataPath(const DatasetSource& source) { return source.sha256 + "/data"; }

Dataset DecodeDataset(const nlohmann::json& json, FieldErrors* errors) {
  return DecodeResource(DatasetFields(), &Dataset::status, DatasetStatusFields(), json, errors, nullptr);
}

nlohmann::json EncodeDatasetStatus(const DatasetStatus& status) { return DatasetStatusFields().Encode(status); }

nlohmann::json EncodeDataset(const Dataset& dataset) { return DatasetFields().Encode(dataset); }

}  // namespace ergobench
